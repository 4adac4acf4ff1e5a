import { pickLatestVersion, VersionCandidate } from './latest-version';

const v = (version: string, extra: Partial<VersionCandidate> = {}): VersionCandidate => ({
  version,
  status: 'NodeVersionStatusActive',
  deprecated: false,
  ...extra,
});

describe('pickLatestVersion', () => {
  it('compares semantically, not as text', () => {
    expect(pickLatestVersion([v('1.9.0'), v('1.10.0'), v('1.2.0')])?.version).toBe('1.10.0');
  });

  it('skips deprecated versions while a current one exists', () => {
    expect(pickLatestVersion([v('1.9.0'), v('1.10.0', { deprecated: true })])?.version).toBe('1.9.0');
  });

  it('falls back to the highest active version when all are deprecated', () => {
    expect(
      pickLatestVersion([v('1.9.0', { deprecated: true }), v('1.10.0', { deprecated: true })])?.version,
    ).toBe('1.10.0');
  });

  it('ignores inactive versions and returns none when nothing is active', () => {
    expect(pickLatestVersion([v('2.0.0', { status: 'NodeVersionStatusBanned' }), v('1.0.0')])?.version).toBe('1.0.0');
    expect(pickLatestVersion([v('2.0.0', { status: 'NodeVersionStatusDeleted' })])).toBeUndefined();
    expect(pickLatestVersion([])).toBeUndefined();
  });

  it('prefers releases over pre-releases, but uses pre-releases when there is nothing else', () => {
    expect(pickLatestVersion([v('1.0.0'), v('2.0.0-beta.1')])?.version).toBe('1.0.0');
    expect(pickLatestVersion([v('2.0.0-beta.1'), v('2.0.0-beta.2')])?.version).toBe('2.0.0-beta.2');
  });
});
