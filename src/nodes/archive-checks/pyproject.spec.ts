import { projectVersion, sameVersion, versionMismatch } from './pyproject';

describe('projectVersion', () => {
  it('reads [project] version, if there is one in valid TOML', () => {
    expect(projectVersion('[project]\nname = "pack"\nversion = "1.2.0"\n')).toBe('1.2.0');
    expect(projectVersion('[project]\nname = "pack"\ndynamic = ["version"]\n')).toBeUndefined();
    expect(projectVersion('[tool.comfy]\nversion = "1.2.0"\n')).toBeUndefined();
    expect(projectVersion('[project]\nversion = 1\n')).toBeUndefined();
    expect(projectVersion('[project\nversion = "1.2.0"\n')).toBeUndefined();
  });
});

describe('sameVersion', () => {
  it.each([
    ['1.2.0', '1.2.0'],
    ['v1.2.0', '1.2.0'],
    ['1.2.0+build.5', '1.2.0'],
    ['1.2', '1.2.0'],
    ['1', '1.0.0'],
  ])('%s is %s', (a, b) => {
    expect(sameVersion(a, b)).toBe(true);
    expect(sameVersion(b, a)).toBe(true);
  });

  it.each([
    ['1.2.1', '1.2.0'],
    ['1.2.0-rc.1', '1.2.0'],
    ['1.2.0rc1', '1.2.0-rc.1'],
    ['1.20', '1.2.0'],
  ])('%s is not %s', (a, b) => expect(sameVersion(a, b)).toBe(false));
});

describe('versionMismatch', () => {
  it('is an info finding naming both versions', () => {
    expect(versionMismatch('[project]\nversion = "1.2.0"\n', 'pack/pyproject.toml', '1.3.0')).toEqual({
      code: 'version-mismatch',
      severity: 'info',
      message: '"pack/pyproject.toml" says version "1.2.0", but the version was published as "1.3.0"',
      file: 'pack/pyproject.toml',
    });
    expect(versionMismatch('[project]\nversion = "1.3"\n', 'pyproject.toml', '1.3.0')).toBeUndefined();
  });
});
