import { validateVariables } from '../config/environment';
import { ArchivesEnvironment } from './archives.config';

describe('archive configuration', () => {
  it('defaults to ./data/archives and 100 MiB', () => {
    expect(validateVariables(ArchivesEnvironment, {})).toMatchObject({ STORAGE_DIR: './data/archives', ARCHIVE_MAX_BYTES: 104857600 });
  });

  it('names a bad ARCHIVE_MAX_BYTES', () => {
    for (const value of ['0', '-1', '1.5', '100MB']) {
      expect(() => validateVariables(ArchivesEnvironment, { ARCHIVE_MAX_BYTES: value })).toThrow(/ARCHIVE_MAX_BYTES/);
    }
    expect(validateVariables(ArchivesEnvironment, { ARCHIVE_MAX_BYTES: '1' }).ARCHIVE_MAX_BYTES).toBe(1);
  });
});
