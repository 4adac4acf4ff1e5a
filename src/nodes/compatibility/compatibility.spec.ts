import { appVersionFits, readAppVersion } from './app-version';
import { compatibilityTarget, CompatibilityCandidate, pickCompatibleVersion } from './compatible-version';
import { ACCELERATOR_FAMILIES, OS_FAMILIES, osOfFormFactor, spellingsOfFamily, supportsPlatform } from './platforms';

describe('platform families', () => {
  it.each([
    ['Microsoft :: Windows', 'windows'],
    ['win32', 'Windows'],
    ['POSIX :: Linux', 'linux'],
    ['MacOS :: MacOS X', 'darwin'],
  ])('%s supports %s', (listed, asked) => {
    expect(supportsPlatform([listed], OS_FAMILIES, asked)).toBe(true);
  });

  it('tells families apart and knows accelerators by vendor', () => {
    expect(supportsPlatform(['POSIX :: Linux'], OS_FAMILIES, 'windows')).toBe(false);
    expect(supportsPlatform(['GPU :: NVIDIA CUDA'], ACCELERATOR_FAMILIES, 'CUDA')).toBe(true);
    expect(supportsPlatform(['GPU :: Intel Arc'], ACCELERATOR_FAMILIES, 'xpu')).toBe(true);
    expect(supportsPlatform(['GPU :: Intel Arc'], ACCELERATOR_FAMILIES, 'cuda')).toBe(false);
  });

  it('lets an empty list or OS Independent support everything, and an unknown value match nothing else', () => {
    expect(supportsPlatform([], OS_FAMILIES, 'linux')).toBe(true);
    expect(supportsPlatform(['OS Independent'], ACCELERATOR_FAMILIES, 'rocm')).toBe(true);
    expect(supportsPlatform(['Windows'], OS_FAMILIES, 'plan9')).toBe(false);
    expect(spellingsOfFamily(OS_FAMILIES, 'plan9')).toEqual([]);
  });

  it('maps form factors to an OS, and unknown ones to none', () => {
    expect(osOfFormFactor('desktop-win')).toBe('windows');
    expect(osOfFormFactor('git-mac')).toBe('macos');
    expect(osOfFormFactor('git-linux')).toBe('linux');
    expect(osOfFormFactor('other')).toBeUndefined();
    expect(osOfFormFactor('toaster')).toBeUndefined();
  });
});

describe('app versions', () => {
  it('reads versions leniently', () => {
    expect(readAppVersion('v0.3.60-3-gabc123')).toBe('0.3.60');
    expect(readAppVersion('0.3.7')).toBe('0.3.7');
    expect(readAppVersion('unknown')).toBeUndefined();
  });

  it('fits ranges in npm syntax; empty fits all, invalid fits none', () => {
    expect(appVersionFits('>=0.3.40', '0.3.60')).toBe(true);
    expect(appVersionFits('>=0.3.40', '0.3.39')).toBe(false);
    expect(appVersionFits('0.3.x', '0.3.99')).toBe(true);
    expect(appVersionFits('^1.2', '2.0.0')).toBe(false);
    expect(appVersionFits(null, '0.0.1')).toBe(true);
    expect(appVersionFits(' ', '0.0.1')).toBe(true);
    expect(appVersionFits('>=0.3 and sometimes', '0.3.60')).toBe(false);
  });
});

describe('compatible version choice', () => {
  const version = (v: string, supportedAppVersion: string | null, supportedOs: string[] = []): CompatibilityCandidate => ({
    version: v,
    status: 'NodeVersionStatusActive',
    deprecated: false,
    supportedAppVersion,
    supportedOs,
  });
  const versions = [version('1.0.0', '>=0.3.0'), version('2.0.0', '>=0.4.0', ['Microsoft :: Windows']), version('3.0.0', '>=0.5.0')];

  it('picks the highest version whose range holds the app version', () => {
    expect(pickCompatibleVersion(versions, { appVersion: '0.4.2' })?.version).toBe('2.0.0');
    expect(pickCompatibleVersion(versions, { appVersion: '0.9.0' })?.version).toBe('3.0.0');
    expect(pickCompatibleVersion(versions, { appVersion: '0.2.0' })).toBeUndefined();
  });

  it('skips versions that do not run on the form factor', () => {
    expect(pickCompatibleVersion(versions, { appVersion: '0.4.2', os: 'linux' })?.version).toBe('1.0.0');
    expect(pickCompatibleVersion(versions, { appVersion: '0.4.2', os: 'windows' })?.version).toBe('2.0.0');
  });

  it('filters on nothing when the request names nothing readable', () => {
    expect(compatibilityTarget('unknown', 'other')).toBeUndefined();
    expect(compatibilityTarget('v0.3.60-3-gabc123', undefined)).toEqual({ appVersion: '0.3.60', os: undefined });
    expect(compatibilityTarget(undefined, 'desktop-mac')).toEqual({ appVersion: undefined, os: 'macos' });
  });
});
