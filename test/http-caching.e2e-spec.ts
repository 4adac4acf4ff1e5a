import { request as httpRequest, IncomingHttpHeaders } from 'node:http';
import { AddressInfo } from 'node:net';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { Readable } from 'node:stream';
import { ArchiveStorage } from '../src/archives/archive-storage';
import { ArchivesService } from '../src/archives/archives.service';
import { addVersions, createPublisherWithNode, PublisherFixture } from './support/registry-fixtures';
import { makeZip } from './support/zip';
import { TestApp } from './support/test-app';

interface RawReply {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** A request with exactly the headers given (fetch would add its own cache headers; supertest decompresses). */
function send(port: number, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('HTTP caching and compression of public reads (docs/api-rules.md §7)', () => {
  let t: TestApp;
  let port: number;
  let f: PublisherFixture;

  beforeAll(async () => {
    t = await TestApp.start({ CACHE_MAX_AGE_S: '42', CORS_ORIGINS: 'https://a.example,https://b.example' });
    port = (t.app.getHttpServer() as { address(): AddressInfo }).address().port;
    f = await createPublisherWithNode(t, { description: 'cached' });
    await addVersions(t, f, '1.0.0');
  });
  afterAll(() => t?.close());

  const publicReads = () => [
    '/nodes?limit=5',
    `/nodes/${f.nodeId}`,
    `/nodes/${f.nodeId}/versions`,
    `/nodes/${f.nodeId}/versions/1.0.0`,
    `/publishers/${f.publisherId}`,
  ];

  it('sends an ETag and public Cache-Control on every public read, and answers a matching If-None-Match with 304 and no body', async () => {
    for (const path of publicReads()) {
      const first = await send(port, path);
      expect([path, first.status]).toEqual([path, 200]);
      expect(first.headers.etag).toMatch(/^W\/".+"$/);
      expect(first.headers['cache-control']).toBe('public, max-age=42');
      expect(first.headers.vary).toContain('Authorization');
      const again = await send(port, path, { 'If-None-Match': first.headers.etag as string });
      expect([path, again.status, again.body.length, again.headers['content-length']]).toEqual([path, 304, 0, undefined]);
      expect(again.headers.etag).toBe(first.headers.etag);
      expect((await send(port, path, { 'If-None-Match': `"other", ${first.headers.etag as string}` })).status).toBe(304);
      expect((await send(port, path, { 'If-None-Match': '"stale"' })).status).toBe(200);
      expect((await send(port, path, { 'If-None-Match': first.headers.etag as string }, 'HEAD')).status).toBe(304);
    }
  });

  it('changes the ETag when the data changes, so a stale copy is replaced', async () => {
    const path = `/nodes/${f.nodeId}`;
    const before = await send(port, path);
    // A listing that holds the node whatever else the (possibly shared) database holds.
    const listing = `/nodes?search=${encodeURIComponent(f.nodeId)}`;
    const listBefore = await send(port, listing);
    await t.http.put(`/publishers/${f.publisherId}/nodes/${f.nodeId}`).set(f.owner.auth).send({ description: 'changed' }).expect(200);
    const after = await send(port, path, { 'If-None-Match': before.headers.etag as string });
    expect(after.status).toBe(200);
    expect(after.headers.etag).not.toBe(before.headers.etag);
    expect(JSON.parse(after.body.toString()).description).toBe('changed');
    expect((await send(port, listing, { 'If-None-Match': listBefore.headers.etag as string })).status).toBe(200);
    await t.http.put(`/publishers/${f.publisherId}/nodes/${f.nodeId}/versions/1.0.0`).set(f.owner.auth).send({ deprecated: true }).expect(200);
    const version = await send(port, `/nodes/${f.nodeId}/versions/1.0.0`);
    expect(JSON.parse(version.body.toString()).deprecated).toBe(true);
  });

  it('never lets an error be cached, and keeps the Vary that CORS set', async () => {
    const missing = await send(port, '/nodes/no-such-node-here');
    expect(missing.status).toBe(404);
    expect(missing.headers['cache-control']).toBeUndefined();
    const fromBrowser = await send(port, `/nodes/${f.nodeId}`, { Origin: 'https://b.example' });
    expect(fromBrowser.headers['access-control-allow-origin']).toBe('https://b.example');
    expect(String(fromBrowser.headers.vary).split(', ')).toEqual(expect.arrayContaining(['Origin', 'Authorization']));
  });

  it('marks replies to a request with a token private, and never caches an install', async () => {
    const withToken = await send(port, `/publishers/${f.publisherId}`, { Authorization: `Bearer ${f.owner.token}` });
    expect(withToken.status).toBe(200);
    expect(withToken.headers['cache-control']).toBe('private, max-age=42');
    // Members see e-mails that anonymous callers do not: the two replies differ, and so do their tags.
    const anonymous = await send(port, `/publishers/${f.publisherId}`);
    expect(anonymous.headers.etag).not.toBe(withToken.headers.etag);
    expect((await send(port, `/nodes/${f.nodeId}/install`)).headers['cache-control']).toBe('no-store');
  });

  it('a private read also has an ETag and answers a matching If-None-Match with 304, as the OpenAPI document says', async () => {
    const auth = { Authorization: `Bearer ${f.owner.token}` };
    for (const path of ['/users/me', '/users/me/ledger']) {
      const first = await send(port, path, auth);
      expect([path, first.status, first.headers.etag]).toEqual([path, 200, expect.stringMatching(/^W\/"/)]);
      const again = await send(port, path, { ...auth, 'If-None-Match': first.headers.etag as string });
      expect([path, again.status, again.body.length]).toEqual([path, 304, 0]);
    }
  });

  it('compresses replies of 1 KiB or more with gzip or br when accepted, and leaves small ones and other clients alone', async () => {
    for (let i = 0; i < 5; i++) await createPublisherWithNode(t, { description: 'a description long enough to make the page large '.repeat(3) });
    const plain = await send(port, '/nodes?limit=100');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.length).toBeGreaterThan(1024);
    const gzip = await send(port, '/nodes?limit=100', { 'Accept-Encoding': 'gzip' });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzip.body).equals(plain.body)).toBe(true);
    expect(gzip.body.length).toBeLessThan(plain.body.length);
    const br = await send(port, '/nodes?limit=100', { 'Accept-Encoding': 'br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.body).equals(plain.body)).toBe(true);
    expect(br.headers.vary).toContain('Accept-Encoding');
    // A compressed reply is still answered 304 by its tag, with the Vary its 200 carries (RFC 9110 §15.4.5).
    const notModified = await send(port, '/nodes?limit=100', { 'Accept-Encoding': 'gzip', 'If-None-Match': gzip.headers.etag as string });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.vary).toBe(gzip.headers.vary);

    const small = await send(port, `/nodes/${f.nodeId}/versions/1.0.0`, { 'Accept-Encoding': 'gzip, br' });
    expect(small.body.length).toBeLessThan(1024);
    expect(small.headers['content-encoding']).toBeUndefined();
  });

  it('an archive download keeps the Vary that CORS set, adding Authorization, released or not', async () => {
    const released = makeZip({ 'pack/__init__.py': '# released\n' });
    const held = makeZip({ 'pack/__init__.py': '# held\n' });
    const storage = t.app.get(ArchiveStorage);
    const [releasedHash, heldHash] = [(await storage.save(Readable.from([released]), released.length)).sha256, (await storage.save(Readable.from([held]), held.length)).sha256];
    t.app.get(ArchivesService).governDownloads({ accessTo: (sha256) => Promise.resolve(sha256 === releasedHash ? 'public' : 'none') });
    for (const [hash, status] of [[releasedHash, 200], [heldHash, 404]] as const) {
      const reply = await send(port, `/archives/${hash}.zip`, { Origin: 'https://a.example' });
      expect(reply.status).toBe(status);
      expect(reply.headers['access-control-allow-origin']).toBe('https://a.example');
      expect(String(reply.headers.vary).split(/,\s*/)).toEqual(expect.arrayContaining(['Origin', 'Authorization']));
    }
  });
});
