import { Body, Controller, Injectable, Module, OnModuleInit, Put, Req } from '@nestjs/common';
import { OpenAPIObject } from '@nestjs/swagger';
import { IsString } from 'class-validator';
import { createHash } from 'node:crypto';
import { readdirSync, readlinkSync } from 'node:fs';
import { IncomingMessage, request as httpRequest, Server } from 'node:http';
import { AddressInfo, connect } from 'node:net';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { Response } from 'supertest';
import { ArchiveAccessPolicy } from '../src/archives/archive-access';
import { ArchiveStorage } from '../src/archives/archive-storage';
import { ArchivesModule } from '../src/archives/archives.module';
import { ArchivesService } from '../src/archives/archives.service';
import { Public } from '../src/auth/authenticated.decorator';
import { RawBody } from '../src/common/http/json-body-limits';
import { TestApp } from './support/test-app';
import { makeZip, refusedZips } from './support/zip';
import { filesUnder } from './support/files';
import { asBuffer } from './support/raw-http';
import { waitFor } from './support/server-process';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');


/** The contract's error body. */
function expectErrorBody(res: Response, status: number, error: string) {
  expect(res.body).toEqual({ statusCode: status, error, message: expect.any(String), requestId: res.headers['x-request-id'] });
}


/** Runs `body` with the port the app's server listens on (for requests supertest cannot make), closing what it left open. */
async function withPort<T>(t: TestApp, body: (port: number) => Promise<T>): Promise<T> {
  const server = t.app.getHttpServer() as Server;
  try {
    return await body((server.address() as AddressInfo).port);
  } finally {
    server.closeAllConnections();
  }
}

interface RawReply {
  status: number;
  body: Record<string, unknown>;
}

/**
 * A PUT sending `chunks` (chunked unless headers give a Content-Length), ended only when `end` is set
 * (a refusal must come without the rest of the body); resolves with the reply as soon as it is complete.
 */
function rawPut(port: number, path: string, headers: Record<string, string>, chunks: Buffer[], end: boolean): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ port, host: '127.0.0.1', method: 'PUT', path, headers }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Record<string, unknown> });
        req.destroy();
      });
    });
    req.on('error', reject);
    req.flushHeaders();
    for (const chunk of chunks) req.write(chunk);
    if (end) req.end();
  });
}

describe('Archives: GET and HEAD /archives/{sha256}.zip', () => {
  let t: TestApp;
  const zip = makeZip({ 'node/__init__.py': 'print("hello")\n', 'node/README.md': '# A node\n'.repeat(20) });
  const hash = sha256(zip);
  const path = `/archives/${hash}.zip`;
  const etag = `"${hash}"`;

  // What a feature storing archives would say (NodeArchiveAccess is the registry's): these, to anyone; those, to
  // a caller with a token; any other, to no one.
  const releasedToAll = new Set([hash]);
  const releasedToCallers = new Set<string>();
  const policy: ArchiveAccessPolicy = {
    accessTo: (name, caller) =>
      Promise.resolve(releasedToAll.has(name) ? 'public' : releasedToCallers.has(name) && caller ? 'caller' : 'none'),
  };

  beforeAll(async () => {
    t = await TestApp.start();
    t.app.get(ArchivesService).governDownloads(policy);
    expect(await t.app.get(ArchiveStorage).save(Readable.from([zip]), zip.length)).toEqual({ sha256: hash, size: zip.length });
  });
  afterAll(() => t.close());

  const get = (url: string) => t.http.get(url).buffer(true).parse(asBuffer);

  it('GET: the exact bytes, with type, length, a strong ETag, immutable caching, ranges, and the pipeline’s headers', async () => {
    const res = await get(path).set('X-Request-Id', 'download-1').expect(200);
    expect(res.body).toEqual(zip);
    expect(res.headers).toMatchObject({
      'content-type': 'application/zip',
      'content-length': String(zip.length),
      etag,
      'cache-control': 'public, max-age=31536000, immutable',
      'accept-ranges': 'bytes',
      'x-request-id': 'download-1',
      'x-content-type-options': 'nosniff',
    });
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
  });

  it('HEAD: the same headers, no body', async () => {
    const res = await t.http.head(path).expect(200);
    expect(res.headers).toMatchObject({ 'content-type': 'application/zip', 'content-length': String(zip.length), etag, 'accept-ranges': 'bytes' });
    expect(res.text ?? '').toBe('');
    // Range is defined for GET only.
    await t.http.head(path).set('Range', 'bytes=0-3').expect(200);
  });

  it('304 without a body when If-None-Match matches (the tag, weakly, in a list, or *)', async () => {
    for (const header of [etag, `W/${etag}`, `"stale", ${etag}`, '*']) {
      const res = await get(path).set('If-None-Match', header).expect(304);
      expect(res.headers.etag).toBe(etag);
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(res.body).toEqual(Buffer.alloc(0));
    }
    expect((await get(path).set('If-None-Match', '"stale"').expect(200)).body).toEqual(zip);
  });

  it('Range: 206 with exactly those bytes and Content-Range; a suffix range; If-Range honoured only for this ETag', async () => {
    const res = await get(path).set('Range', 'bytes=10-29').expect(206);
    expect(res.body).toEqual(zip.subarray(10, 30));
    expect(res.headers).toMatchObject({ 'content-range': `bytes 10-29/${zip.length}`, 'content-length': '20', etag });
    const tail = await get(path).set('Range', 'bytes=-22').expect(206);
    expect(tail.body).toEqual(zip.subarray(zip.length - 22));
    expect((await get(path).set('Range', 'bytes=0-3').set('If-Range', etag).expect(206)).body).toEqual(zip.subarray(0, 4));
    expect((await get(path).set('Range', 'bytes=0-3').set('If-Range', '"other"').expect(200)).body).toEqual(zip);
  });

  it('several disjoint ranges: the whole archive with 200', async () => {
    expect((await get(path).set('Range', 'bytes=0-1,20-21').expect(200)).body).toEqual(zip);
  });

  it('a range whose last byte comes before its first is ignored (RFC 9110 §14.1.2): the whole archive with 200', async () => {
    expect((await get(path).set('Range', 'bytes=5-2').expect(200)).body).toEqual(zip);
    expect((await get(path).set('Range', 'bytes=0-3, 9-4').expect(200)).body).toEqual(zip);
    expect((await get(path).set('Range', 'Bytes=5-2').expect(200)).body).toEqual(zip);
  });

  it('a Range in another unit is ignored, however far it reaches; the unit is case-insensitive', async () => {
    expect((await get(path).set('Range', 'items=5000-6000').expect(200)).body).toEqual(zip);
    expect((await get(path).set('Range', 'Bytes=0-3').expect(206)).body).toEqual(zip.subarray(0, 4));
  });

  it('416 with Content-Range bytes */size and the error body when no range is satisfiable', async () => {
    const res = await t.http.get(path).set('Range', `bytes=${zip.length}-`).expect(416);
    expect(res.headers['content-range']).toBe(`bytes */${zip.length}`);
    expectErrorBody(res, 416, 'Range Not Satisfiable');
  });

  it('404 in the error shape for an unknown archive', async () => {
    const res = await t.http.get(`/archives/${'0'.repeat(64)}.zip`).expect(404);
    expectErrorBody(res, 404, 'Not Found');
    expect(res.body.message).toBe('archive not found');
    await t.http.head(`/archives/${'0'.repeat(64)}.zip`).expect(404);
  });

  it('an archive stored but released by no feature is 404, as an unknown one; one released to callers needs a token and is never cached', async () => {
    const held = makeZip({ 'held/__init__.py': '# under review\n' });
    const { sha256: heldHash } = await t.app.get(ArchiveStorage).save(Readable.from([held]), held.length);
    expect((await t.http.get(`/archives/${heldHash}.zip`).expect(404)).body.message).toBe('archive not found');
    releasedToCallers.add(heldHash);
    try {
      await t.http.head(`/archives/${heldHash}.zip`).expect(404);
      const user = await t.createUser();
      const res = await get(`/archives/${heldHash}.zip`).set(user.auth).expect(200);
      expect(res.body).toEqual(held);
      expect(res.headers['cache-control']).toBe('private, no-store');
      // A token that is not valid reads as anonymous, as on every public read.
      await t.http.get(`/archives/${heldHash}.zip`).set('Authorization', 'Bearer not-a-token').expect(404);
    } finally {
      releasedToCallers.delete(heldHash);
    }
  });

  it('404 for a name that is not 64 lowercase hex digits, without asking the store', async () => {
    const stat = jest.spyOn(t.app.get(ArchiveStorage), 'stat');
    try {
      for (const name of [hash.toUpperCase(), hash.slice(1), `${hash}0`, '..%2F..%2Fetc%2Fpasswd', `${hash.slice(2)}%2F..`, 'x'.repeat(64)]) {
        expectErrorBody(await t.http.get(`/archives/${name}.zip`).expect(404), 404, 'Not Found');
      }
      expect(stat).not.toHaveBeenCalled();
    } finally {
      stat.mockRestore();
    }
  });

  it('a client that disconnects mid-download crashes nothing and leaves no file descriptor open', async () => {
    // Larger than the socket buffers, so the server is still streaming when the client goes.
    const big = makeZip({ 'big.bin': 'x'.repeat(32 * 1024 * 1024) });
    const { sha256: bigHash } = await t.app.get(ArchiveStorage).save(Readable.from([big]), big.length);
    releasedToAll.add(bigHash);
    const file = join(t.storageDir, bigHash.slice(0, 2), `${bigHash}.zip`);
    const openOnFile = () =>
      readdirSync('/proc/self/fd').filter((fd) => {
        try {
          return readlinkSync(`/proc/self/fd/${fd}`) === file;
        } catch {
          return false; // closed meanwhile
        }
      }).length;
    await withPort(t, async (port) => {
      await new Promise<void>((resolve) => {
        const socket = connect(port, '127.0.0.1', () => socket.write(`GET /archives/${bigHash}.zip HTTP/1.1\r\nHost: x\r\n\r\n`));
        socket.once('data', () => {
          expect(openOnFile()).toBe(1);
          socket.destroy();
          resolve();
        });
      });
      await waitFor(() => openOnFile() === 0, 10_000, 'the archive’s file descriptor to be closed');
      await t.http.get('/health').expect(200);
    });
  });

  it('is documented: 200 and 206 as application/zip, 304, 404, 416, and the 400, 408, 413, 415 and 429 of every route', async () => {
    const doc = (await t.http.get('/docs-json').expect(200)).body as OpenAPIObject;
    const operation = doc.paths['/archives/{sha256}.zip']?.get;
    expect(Object.keys(operation?.responses ?? {}).sort()).toEqual(['200', '206', '304', '400', '404', '408', '413', '415', '416', '429']);
    expect(operation?.responses['416']).toMatchObject({ content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorResponseDto' } } } });
    expect(operation?.responses['200']).toMatchObject({ content: { 'application/zip': { schema: { type: 'string', format: 'binary' } } } });
  });
});

/** A method decorator that wraps the handler in a function of another name, as some libraries' do. */
function Wrapped(): MethodDecorator {
  return (_target, _key, descriptor: PropertyDescriptor) => {
    const original = descriptor.value as (...args: unknown[]) => unknown;
    descriptor.value = function wrapper(this: unknown, ...args: unknown[]) {
      return original.apply(this, args);
    };
  };
}

class EchoDto {
  @IsString()
  note!: string;
}

/**
 * A raw-body upload route and a JSON one, mounted as an extension the way the upload features do it.
 * Anonymous, so that these tests exercise the body handling alone (routes need a token by default).
 */
@Public()
@Controller()
class TestUploadsController {
  constructor(private readonly archives: ArchivesService) {}

  @Put('test-uploads/:name')
  @RawBody()
  upload(@Req() req: IncomingMessage) {
    return this.archives.receive(req);
  }

  @Put('test-json/:name')
  echo(@Body() body: EchoDto) {
    return body;
  }

  // The function Nest calls is the decorator's wrapper, not one named `wrapped`: the body is still this route's.
  @Put('test-wrapped/:name')
  @Wrapped()
  wrapped(@Body() body: EchoDto) {
    return body;
  }
}

/** The extension releases every archive it stores, as a feature with no review would. */
@Injectable()
class ReleaseEveryUpload implements OnModuleInit {
  constructor(private readonly archives: ArchivesService) {}

  onModuleInit(): void {
    this.archives.governDownloads({ accessTo: () => Promise.resolve('public') });
  }
}

@Module({ imports: [ArchivesModule], controllers: [TestUploadsController], providers: [ReleaseEveryUpload] })
class TestUploadsModule {}

describe('Archives: uploads through a raw-body route (ArchivesService.receive)', () => {
  const MAX = 4096;
  let t: TestApp;
  const zip = makeZip({ 'node.py': 'x = 1\n' });

  beforeAll(async () => {
    t = await TestApp.start({ ARCHIVE_MAX_BYTES: String(MAX) }, { extensions: [{ module: TestUploadsModule }] });
  });
  afterAll(() => t.close());

  const upload = (body: Buffer | string, type = 'application/zip', path = '/test-uploads/a') =>
    t.http.put(path).set('Content-Type', type).send(body);

  describe('stores nothing when it refuses', () => {
    afterEach(() => expect(filesUnder(t.storageDir)).toEqual([]));

    it('400 for a body that is not a zip or an empty body; 415 for a content type that does not name a zip, as on JSON routes', async () => {
      expect((await upload('not a zip at all').expect(400)).body.message).toBe('the archive is not a zip file');
      expect((await upload('').expect(400)).body.message).toBe('the archive is empty');
      for (const type of ['text/plain', 'application/json']) {
        const res = await upload(zip, type).expect(415);
        expectErrorBody(res, 415, 'Unsupported Media Type');
        expect(res.body.message).toBe('request body must be application/zip');
      }
    });

    it('400 for a body that starts like a zip but that a zip reader cannot read (docs/api-rules.md §6)', async () => {
      for (const [what, bytes] of Object.entries(refusedZips())) {
        const res = await upload(bytes).expect(400);
        expectErrorBody(res, 400, 'Bad Request');
        expect({ what, message: res.body.message }).toEqual({ what, message: expect.stringMatching(/^the archive is not a readable zip file: \S/) });
        await t.http.get(`/archives/${sha256(bytes)}.zip`).expect(404);
      }
    });

    it('413 for a Content-Length over ARCHIVE_MAX_BYTES, answered before any of the body is sent', async () => {
      const reply = await withPort(t, (port) =>
        rawPut(port, '/test-uploads/a', { 'Content-Type': 'application/zip', 'Content-Length': String(MAX + 1) }, [], false),
      );
      expect(reply).toEqual({
        status: 413,
        body: { statusCode: 413, error: 'Payload Too Large', message: `the archive is larger than ${MAX} bytes`, requestId: expect.any(String) },
      });
    });

    it('413 for a chunked body (no Content-Length) that grows past ARCHIVE_MAX_BYTES', async () => {
      const reply = await withPort(t, (port) =>
        rawPut(port, '/test-uploads/a', { 'Content-Type': 'application/zip', 'Transfer-Encoding': 'chunked' }, [zip, ...Array.from({ length: 5 }, () => Buffer.alloc(1024))], false),
      );
      expect(reply).toMatchObject({ status: 413, body: { statusCode: 413, error: 'Payload Too Large' } });
    });

    it('after a refusal mid-body, the rest of the body is read and the connection serves the next request', async () => {
      const replies = await withPort(t, (port) =>
        new Promise<string>((resolve) => {
          let received = '';
          const socket = connect(port, '127.0.0.1', () => {
            const chunk = (bytes: Buffer) => Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from('\r\n')]);
            socket.write('PUT /test-uploads/a HTTP/1.1\r\nHost: x\r\nContent-Type: application/zip\r\nTransfer-Encoding: chunked\r\n\r\n');
            // Far more than the request stream buffers: left unread, it would stall the connection.
            const rest = Array.from({ length: 64 }, () => chunk(Buffer.alloc(16 * 1024)));
            socket.write(Buffer.concat([chunk(zip), ...rest, Buffer.from('0\r\n\r\n')]));
            socket.write('GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
          });
          socket.on('data', (data: Buffer) => (received += data.toString()));
          socket.on('close', () => resolve(received));
        }),
      );
      expect(replies.match(/HTTP\/1\.1 \d{3}/g)).toEqual(['HTTP/1.1 413', 'HTTP/1.1 200']);
    });

    it('a client that aborts mid-upload leaves no temp file', async () => {
      await withPort(t, async (port) => {
        const req = httpRequest({ port, host: '127.0.0.1', method: 'PUT', path: '/test-uploads/a', headers: { 'Content-Type': 'application/zip' } });
        req.on('error', () => undefined);
        req.write(zip.subarray(0, 10));
        await waitFor(() => filesUnder(t.storageDir).length === 1, 10_000, 'the upload’s temp file to exist');
        req.destroy();
        await waitFor(() => filesUnder(t.storageDir).length === 0, 10_000, 'the temp file to be removed');
      });
    });
  });

  it('200 with the sha256 and size for a zip (any of the zip content types), ignoring case and a trailing slash; downloadable at once', async () => {
    const hash = sha256(zip);
    for (const [type, path] of [
      ['application/zip', '/test-uploads/a'],
      ['application/x-zip-compressed', '/test-uploads/b'],
      ['application/octet-stream', '/TEST-UPLOADS/c/'],
    ]) {
      expect((await upload(zip, type, path).expect(200)).body).toEqual({ sha256: hash, size: zip.length });
    }
    expect(filesUnder(t.storageDir)).toEqual([join(hash.slice(0, 2), `${hash}.zip`)]);
    const res = await t.http.get(`/archives/${hash}.zip`).buffer(true).parse(asBuffer).expect(200);
    expect(res.body).toEqual(zip);
  });

  it('a chunked zip within the limit is stored', async () => {
    const large = makeZip({ 'a.txt': 'a'.repeat(3000) });
    const reply = await withPort(t, (port) =>
      rawPut(
        port,
        '/test-uploads/a',
        { 'Content-Type': 'application/zip', 'Transfer-Encoding': 'chunked' },
        Array.from({ length: Math.ceil(large.length / 1000) }, (_, i) => large.subarray(i * 1000, (i + 1) * 1000)),
        true,
      ),
    );
    expect(reply).toEqual({ status: 200, body: { sha256: sha256(large), size: large.length } });
  });

  it('other routes still parse JSON and refuse a zip with 415; the raw route’s path with another method is 405', async () => {
    expect((await t.http.put('/test-json/a').send({ note: 'hi' }).expect(200)).body).toEqual({ note: 'hi' });
    expect((await t.http.put('/test-wrapped/a').send({ note: 'hi' }).expect(200)).body).toEqual({ note: 'hi' });
    expectErrorBody(await upload(zip, 'application/zip', '/test-json/a').expect(415), 415, 'Unsupported Media Type');
    // Bodies are read by the route that takes them, so a request no route takes is refused whatever its body: a known
    // path with another method is 405.
    expect((await t.http.post('/test-uploads/a').set('Content-Type', 'application/zip').send(zip).expect(405)).headers.allow).toBe('PUT');
    // A parameter is one path segment.
    await upload(zip, 'application/zip', '/test-uploads/a/b').expect(404);
  });

  it('downloadUrl: the origin given when PUBLIC_BASE_URL is unset', () => {
    const hash = sha256(zip);
    expect(t.app.get(ArchivesService).linksFor('http://127.0.0.1:3000')(hash)).toBe(`http://127.0.0.1:3000/archives/${hash}.zip`);
  });
});
