import { lookup as dnsLookup, LookupAddress } from 'node:dns';
import { IncomingMessage, request as httpRequest, RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isNonPublicAddress } from './callback-address';

export class RefusedAddressError extends Error {}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A DNS lookup that refuses loopback and private answers. Used as the
 * connection's own lookup, the address checked is the address connected to:
 * a name cannot resolve to a public address for the check and a private one
 * for the request.
 */
export function publicOnlyLookup(hostname: string, options: object, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const refused = addresses.find(({ address }) => isNonPublicAddress(address));
    if (refused) {
      return callback(new RefusedAddressError(`${hostname} resolves to a loopback or private address`), []);
    }
    const wantsAll = (options as { all?: boolean }).all === true;
    return wantsAll ? callback(null, addresses) : callback(null, addresses[0].address, addresses[0].family);
  });
}

export interface PostResult {
  status?: number;
  error?: Error;
}

/**
 * How a request to `url` connects under the address rule: refused outright
 * for a loopback or private IP literal, otherwise through publicOnlyLookup
 * (unless private addresses are allowed) and never redirected.
 */
function connectionTo(url: URL, allowPrivate: boolean): RequestOptions | RefusedAddressError {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return new RefusedAddressError(`${url.protocol} is not http(s)`);
  if (!allowPrivate && isIpLiteral(url.hostname) && isNonPublicAddress(stripBrackets(url.hostname))) {
    return new RefusedAddressError(`${url.hostname} is a loopback or private address`);
  }
  return allowPrivate ? {} : { lookup: publicOnlyLookup };
}

/** POSTs a body and resolves with the status (redirects are not followed) or the error; never rejects. */
export function postJson(
  url: string,
  body: string,
  headers: Record<string, string>,
  options: { allowPrivate: boolean; timeoutMs: number },
): Promise<PostResult> {
  return new Promise((resolve) => {
    const target = new URL(url);
    const connection = connectionTo(target, options.allowPrivate);
    if (connection instanceof RefusedAddressError) return resolve({ error: connection });
    const requestOptions: RequestOptions = {
      method: 'POST',
      headers: { ...headers, 'Content-Length': Buffer.byteLength(body) },
      timeout: options.timeoutMs,
      ...connection,
    };
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const request = send(target, requestOptions, (response) => {
      response.resume();
      response.on('end', () => resolve({ status: response.statusCode }));
      response.on('error', (error) => resolve({ error }));
    });
    const deadline = setTimeout(() => request.destroy(new Error('timed out')), options.timeoutMs);
    request.on('timeout', () => request.destroy(new Error('timed out')));
    request.on('error', (error) => resolve({ error }));
    request.on('close', () => clearTimeout(deadline));
    request.end(body);
  });
}

/**
 * GETs `url` under the same address rule (kept video results): resolves with
 * the response, its body unread, or rejects (RefusedAddressError for a
 * refused address). The connection is dropped after `idleTimeoutMs` without
 * a byte, and when `signal` aborts.
 */
export function getStream(url: string, options: { allowPrivate: boolean; idleTimeoutMs: number; signal: AbortSignal }): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const connection = connectionTo(target, options.allowPrivate);
    if (connection instanceof RefusedAddressError) return reject(connection);
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const request = send(target, { method: 'GET', timeout: options.idleTimeoutMs, signal: options.signal, ...connection }, resolve);
    request.on('timeout', () => request.destroy(new Error(`no data for ${options.idleTimeoutMs} ms`)));
    request.on('error', reject);
    request.end();
  });
}

function stripBrackets(host: string): string {
  return host.replace(/^\[|\]$/g, '');
}

function isIpLiteral(host: string): boolean {
  return /^\[.*\]$/.test(host) || /^\d+\.\d+\.\d+\.\d+$/.test(host);
}
