import { HttpModuleOptions } from '@nestjs/axios';
import { AxiosRequestConfig } from 'axios';
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';

/**
 * The TCP keep-alive probe delay axios sets on every request's socket. Node's
 * agent sets its own `keepAliveMsecs` (1 s by default) whenever a socket goes
 * back to the pool, so with the default agent the two alternate and each
 * request pays eight setsockopt calls; agreeing on one value lets Node skip
 * the repeats.
 */
const KEEP_ALIVE_PROBE_MS = 60_000;

/** Upstreams echo the request (images included), so a reply may be as large as the largest request. */
const MAX_REPLY_BYTES = 64 * 1024 * 1024;

/** How long an idle pooled socket stays open, as on Node's global agent (shorter when the upstream's Keep-Alive says so). */
export const IDLE_SOCKET_TIMEOUT_MS = 5_000;

/**
 * The idle timeout is an own property of the agent's options that does not
 * show when they are copied: behind `HTTPS_PROXY`, axios builds its
 * tunnelling agent from `{ ...httpsAgent.options }`, where `timeout` would
 * become a deadline for reaching the proxy (a 502 after 5 s instead of the
 * 504 at VIDEO_UPSTREAM_TIMEOUT_MS). Node's agent reads it directly when a
 * socket goes back to the pool, which is the only place it matters: the
 * request's own deadline bounds a socket in use.
 */
function withIdleTimeout<T extends HttpAgent>(agent: T): T {
  Object.defineProperty((agent as T & { options: object }).options, 'timeout', {
    value: IDLE_SOCKET_TIMEOUT_MS,
    enumerable: false,
    writable: true,
    configurable: true,
  });
  return agent;
}

/** A keep-alive agent pair of the upstream's own, otherwise as Node's global agent (idle sockets close after 5 s). */
export function upstreamHttpOptions(): HttpModuleOptions {
  const options = { keepAlive: true, keepAliveMsecs: KEEP_ALIVE_PROBE_MS, scheduling: 'lifo' as const };
  return { httpAgent: withIdleTimeout(new HttpAgent(options)), httpsAgent: withIdleTimeout(new HttpsAgent(options)) };
}

/** The options of every call to the upstream (also used by the benchmark's forwarder, bench/calibration-server.js). */
export function upstreamRequestOptions(apiKey: string, timeoutMs: number, stopping?: AbortSignal): AxiosRequestConfig {
  // Bounds the whole exchange, so silence too: axios' own `timeout` (more timers per call) could
  // never fire first. `stopping` ends it sooner (a shutdown).
  const deadline = AbortSignal.timeout(timeoutMs);
  return {
    headers: { Authorization: `Token ${apiKey}`, 'Content-Type': 'application/json' },
    signal: stopping ? AbortSignal.any([deadline, stopping]) : deadline,
    // Bodies may carry a 1 MiB payload plus seven images; statuses are mapped here, not thrown by axios.
    maxBodyLength: Infinity,
    maxContentLength: MAX_REPLY_BYTES,
    validateStatus: () => true,
    // A redirect is an upstream failure: following it would send the key elsewhere (and turn a POST
    // into a GET). It also keeps follow-redirects' wrapper off every request.
    maxRedirects: 0,
  };
}
