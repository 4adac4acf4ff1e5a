import { HttpModuleOptions } from '@nestjs/axios';
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
