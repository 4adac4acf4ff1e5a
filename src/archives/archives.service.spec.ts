import { Counter } from 'prom-client';
import { validateEnvironment, validateVariables } from '../config/environment';
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
