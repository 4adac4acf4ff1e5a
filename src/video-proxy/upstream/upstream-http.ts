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

/** A keep-alive agent pair of the upstream's own, otherwise as Node's global agent (idle sockets close after 5 s). */
export function upstreamHttpOptions(): HttpModuleOptions {
  const options = { keepAlive: true, keepAliveMsecs: KEEP_ALIVE_PROBE_MS, timeout: 5_000, scheduling: 'lifo' as const };
  return { httpAgent: new HttpAgent(options), httpsAgent: new HttpsAgent(options) };
}
