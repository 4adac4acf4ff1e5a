import { Counter } from 'prom-client';
import { validateEnvironment, validateVariables } from '../config/environment';
import { ArchiveAccess } from './archive-access';
import { ArchivesEnvironment } from './archives.config';
import { ArchivesService } from './archives.service';
import { FilesystemArchiveStorage } from './filesystem-archive-storage';

function serviceWith(env: Record<string, string>): ArchivesService {
  const counter = (name: string) => new Counter({ name, help: name, registers: [] });
  return new ArchivesService(
    new FilesystemArchiveStorage('unused'),
    validateVariables(ArchivesEnvironment, env),
    validateEnvironment(env),
    counter('stored'),
    counter('bytes'),
  );
}

describe('ArchivesService.linksFor', () => {
  const sha256 = 'c0'.repeat(32);

  it('is on the request’s origin without PUBLIC_BASE_URL', () => {
    expect(serviceWith({}).linksFor('http://127.0.0.1:3000')(sha256)).toBe(`http://127.0.0.1:3000/archives/${sha256}.zip`);
  });

  it('is on PUBLIC_BASE_URL when set, keeping its path prefix, whatever the origin', () => {
    const service = serviceWith({ PUBLIC_BASE_URL: 'https://registry.example.com/api/' });
    expect(service.linksFor('http://10.0.0.5:3000')(sha256)).toBe(`https://registry.example.com/api/archives/${sha256}.zip`);
  });

  it('refuses a name that is not a sha256', () => {
    expect(() => serviceWith({}).linksFor('http://127.0.0.1:3000')('../x')).toThrow('not a sha256');
  });
});

describe('ArchivesService.downloadable', () => {
  const sha256 = 'c0'.repeat(32);
  const caller = { id: 'u1', email: 'u1@example.com', name: 'U', isAdmin: false };

  /** A service whose store holds `sha256`, governed by policies answering as given. */
  function governedBy(...answers: ArchiveAccess[]): ArchivesService {
    const service = serviceWith({});
    jest.spyOn(service, 'find').mockResolvedValue({ sha256, size: 10 });
    for (const answer of answers) service.governDownloads({ accessTo: () => Promise.resolve(answer) });
    return service;
  }

  it('is 404 when no policy releases the archive, or when there is none', async () => {
    await expect(governedBy().downloadable(sha256, caller)).rejects.toThrow('archive not found');
    await expect(governedBy('none', 'none').downloadable(sha256, caller)).rejects.toThrow('archive not found');
  });

  it('is public when any policy says so, whatever the others say; else private to the caller one releases it to', async () => {
    expect((await governedBy('caller', 'public').downloadable(sha256, undefined)).representation.cacheControl).toBe(
      'public, max-age=31536000, immutable',
    );
    expect((await governedBy('none', 'caller').downloadable(sha256, caller)).representation.cacheControl).toBe('private, no-store');
  });
});
