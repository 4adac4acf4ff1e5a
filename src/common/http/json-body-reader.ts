import { BadRequestException, PayloadTooLargeException, UnsupportedMediaTypeException } from '@nestjs/common';
import contentType from 'content-type';
import { IncomingMessage } from 'node:http';
import { finished, Readable, Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import typeIs from 'type-is';
import { continueBody } from './expect-continue';
import { JsonBodyLimits, MIB } from './json-body-limits';
import { JsonLimitExceededError, JsonStructureLimiter, MalformedJsonError } from './json-structure';

const JSON_TYPES = ['application/json', 'application/*+json'];

/**
 * Compressed bodies are inflated as they arrive, and every limit counts the
 * inflated bytes as they are produced: a small compressed body that inflates
 * past its route's byte limit is refused at that point, never held whole.
 */
const DECODERS: Record<string, (() => Transform) | undefined> = {
  identity: undefined,
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};

/** Whether the request announces a body (chunked, or a Content-Length other than 0). */
export function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

function describeBytes(bytes: number): string {
  return bytes % MIB === 0 ? `${bytes / MIB} MiB` : `${bytes} bytes`;
}

/** The Content-Type header's parameters; 400 when they are malformed (type-is reads only the type before them). */
function parameters(req: IncomingMessage): Record<string, string | undefined> {
  try {
    return contentType.parse(req).parameters;
  } catch {
    throw new BadRequestException('the Content-Type header is malformed');
  }
}

/** 415 unless the body is JSON in UTF-8 (the only charset JSON allows on the wire, RFC 8259 §8.1). */
function assertJson(req: IncomingMessage): void {
  if (!typeIs(req, JSON_TYPES)) {
    throw new UnsupportedMediaTypeException('request body must be application/json');
  }
  const charset = parameters(req).charset?.toLowerCase();
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    throw new UnsupportedMediaTypeException(`unsupported charset "${charset}": request bodies are UTF-8`);
  }
}

function decoderFor(req: IncomingMessage): Transform | undefined {
  const encoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (!(encoding in DECODERS)) {
    throw new UnsupportedMediaTypeException(`unsupported content encoding "${encoding}" (gzip, deflate, br or none)`);
  }
  return DECODERS[encoding]?.();
}

/**
 * Stops reading a refused body, leaving the rest unread: once the error
 * reply has gone out, drainRefusedBodies (refused-body-drain.ts) reads it at
 * a bounded rate, so the client gets the reply rather than a reset.
 */
function stopReading(req: IncomingMessage, decoder: Transform | undefined): void {
  if (decoder) {
    req.unpipe(decoder);
    decoder.destroy();
  }
}

function toHttpException(error: unknown, req: IncomingMessage, decoding: boolean): unknown {
  if (error instanceof JsonLimitExceededError) return new PayloadTooLargeException(error.message);
  if (error instanceof MalformedJsonError) return new BadRequestException(error.message);
  // The client went away mid-body: nobody reads this reply, and the request log records the abort.
  if (req.destroyed && !req.complete) return new BadRequestException('the request body ended before it was complete');
  // Anything else read through a decoder is the decoder refusing the bytes (zlib's Z_… errors, brotli's ERR_…).
  if (decoding) return new BadRequestException('the request body could not be decompressed');
  return error;
}

/**
 * Reads a JSON request body within `limits` (see JsonBodyLimits): 415 for
 * another content type, charset or encoding, 413 as soon as the body crosses
 * a limit (a declared Content-Length over the byte limit before anything is
 * read), 400 for malformed JSON. The value is parsed by JSON.parse only once
 * the whole text has passed every check. Undefined when there is no body.
 */
export async function readJsonBody(req: IncomingMessage, limits: JsonBodyLimits): Promise<unknown> {
  if (!hasBody(req)) return undefined;
  assertJson(req);
  const decoder = decoderFor(req);
  // A message, not an Error: most bodies never cross the limit, and an Error would capture a stack on every request.
  const tooLarge = `request body is larger than ${describeBytes(limits.maxBytes)}`;
  if (!decoder && Number(req.headers['content-length'] ?? 0) > limits.maxBytes) {
    throw new PayloadTooLargeException(tooLarge);
  }
  continueBody(req);
  let source: Readable = req;
  if (decoder) {
    source = req.pipe(decoder);
    // pipe() does not pass a client's abort on; without this the decoder would wait for more forever.
    finished(req, (error) => error && decoder.destroy(error));
  }
  const limiter = new JsonStructureLimiter(limits);
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    // Not destroyed when refused: for an HTTP request, that would reset the connection before the error reply goes out.
    for await (const chunk of source.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > limits.maxBytes) throw new JsonLimitExceededError(tooLarge);
      limiter.write(chunk);
      chunks.push(chunk);
    }
    limiter.end();
  } catch (error) {
    stopReading(req, decoder);
    throw toHttpException(error, req, decoder !== undefined);
  }
  try {
    return JSON.parse(Buffer.concat(chunks, size).toString('utf8'));
  } catch {
    throw new BadRequestException(new MalformedJsonError().message);
  }
}
