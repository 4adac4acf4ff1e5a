import { HttpException, HttpStatus, Logger } from '@nestjs/common';
import { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { pipeline, Readable } from 'node:stream';
import rangeParser from 'range-parser';

/** Archives are content-addressed: the bytes behind a name never change. */
export const ARCHIVE_CACHE_CONTROL = 'public, max-age=31536000, immutable';

export interface ByteRange {
  start: number;
  end: number;
}

/** How the bytes are labelled: archives are zips cached for good; other stored files (video results) say their own. */
export interface Representation {
  contentType: string;
  cacheControl: string;
}

export const ZIP_ARCHIVE: Representation = { contentType: 'application/zip', cacheControl: ARCHIVE_CACHE_CONTROL };

/** What a download answers, decided from the archive and the request's headers alone. */
export type DownloadReply =
  | { status: 200 | 304 | 416; headers: Record<string, string> }
  | { status: 206; headers: Record<string, string>; range: ByteRange };

/** If-None-Match uses the weak comparison (RFC 9110 §13.1.2): `W/"x"` matches `"x"`; `*` matches any archive. */
function noneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

/**
 * The range set of a Range in bytes (the unit is case-insensitive), or undefined for one to ignore (RFC
 * 9110 §14.2): in another unit, malformed, or with a range whose last byte comes before its first
 * (§14.1.2: syntactically invalid), which range-parser would skip and then call unsatisfiable.
 */
function byteRangeSet(header: string): string | undefined {
  const separator = header.indexOf('=');
  if (separator < 0 || header.slice(0, separator).trim().toLowerCase() !== 'bytes') return undefined;
  const set = header.slice(separator + 1);
  const backwards = set.split(',').some((spec) => {
    const bounds = /^\s*(\d+)-(\d+)\s*$/.exec(spec);
    return bounds !== null && Number(bounds[2]) < Number(bounds[1]);
  });
  return backwards ? undefined : set;
}

/** The one range to send, 'unsatisfiable', or undefined for the whole archive. */
function requestedRange(size: number, headers: IncomingHttpHeaders, etag: string): ByteRange | 'unsatisfiable' | undefined {
  if (headers.range === undefined) return undefined;
  // If-Range: the range only applies to the copy the client holds (strong comparison; a date never
  // matches, since no Last-Modified is sent); for any other, the whole archive.
  const ifRange = headers['if-range'];
  if (ifRange !== undefined && String(ifRange).trim() !== etag) return undefined;
  const set = byteRangeSet(headers.range);
  if (set === undefined) return undefined;
  const ranges = rangeParser(size, `bytes=${set}`, { combine: true });
  if (ranges === -1) return 'unsatisfiable';
  if (ranges === -2) return undefined;
  // Several ranges (after merging overlapping and adjacent ones): the whole archive with 200, which
  // RFC 9110 allows; package managers ask for one range to resume, none for multipart/byteranges.
  if (ranges.length !== 1) return undefined;
  return ranges[0];
}

/**
 * The reply to GET or HEAD of an archive: 304 when the client's copy is
 * current, else 206 for a single satisfiable range (GET only: Range is
 * defined for GET alone), 416 for an unsatisfiable one, else 200. If-None-Match
 * is evaluated before Range, as RFC 9110 §13.2.2 orders preconditions.
 */
export function planDownload(
  archive: { sha256: string; size: number },
  method: string,
  headers: IncomingHttpHeaders,
  representation: Representation = ZIP_ARCHIVE,
): DownloadReply {
  const etag = `"${archive.sha256}"`;
  const validators = { ETag: etag, 'Cache-Control': representation.cacheControl };
  if (noneMatch(headers['if-none-match'], etag)) return { status: 304, headers: validators };
  const whole = { ...validators, 'Content-Type': representation.contentType, 'Accept-Ranges': 'bytes', 'Content-Length': String(archive.size) };
  const range = method === 'GET' ? requestedRange(archive.size, headers, etag) : undefined;
  if (range === undefined) return { status: 200, headers: whole };
  if (range === 'unsatisfiable') return { status: 416, headers: { 'Content-Range': `bytes */${archive.size}` } };
  return {
    status: 206,
    headers: { ...whole, 'Content-Length': String(range.end - range.start + 1), 'Content-Range': `bytes ${range.start}-${range.end}/${archive.size}` },
    range,
  };
}

const logger = new Logger('Downloads');

/**
 * Answers GET or HEAD of a stored file as planDownload decides (416 thrown as
 * the error reply), streaming the bytes (or the range) that `read` opens.
 */
export function sendDownload(
  file: { sha256: string; size: number },
  req: { method: string; headers: IncomingHttpHeaders },
  response: ServerResponse,
  read: (range?: ByteRange) => Readable,
  representation?: Representation,
): void {
  const reply = planDownload(file, req.method, req.headers, representation);
  if (reply.status === 416) {
    response.setHeader('Content-Range', reply.headers['Content-Range']);
    throw new HttpException(`range not satisfiable: the file is ${file.size} bytes`, HttpStatus.REQUESTED_RANGE_NOT_SATISFIABLE);
  }
  response.writeHead(reply.status, reply.headers);
  if (reply.status === 304 || req.method === 'HEAD') {
    response.end();
    return;
  }
  // pipeline adds seven 'close' listeners to the reply, beside the middleware's (request log, pacing,
  // compression, metrics): past Node's threshold of 10, which prints a leak warning for each download.
  response.setMaxListeners(20);
  // pipeline, not pipe: when the client goes away mid-download the file stream is destroyed too,
  // which closes its descriptor at once.
  pipeline(read(reply.status === 206 ? reply.range : undefined), response, (error) => {
    // A client that disconnects is no fault (the request log records the abort); a failed read is.
    if (error && error.code !== 'ERR_STREAM_PREMATURE_CLOSE') {
      logger.error({ err: error, sha256: file.sha256 }, 'download failed mid-stream');
    }
  });
}
