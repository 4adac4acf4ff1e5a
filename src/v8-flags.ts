import { setFlagsFromString } from 'node:v8';

/**
 * Called by main.ts once the server listens.
 *
 * Under load, requests that wait (a write queued for SQLite's one writer, a
 * create waiting on the upstream) outlive young-generation GCs. V8's
 * allocation-site pretenuring then decides that objects from those sites
 * (mostly the framework's, shared by every route) should be allocated in the
 * old generation directly, and keeps doing so after the load has passed: a
 * GET-only load after the write routes grew the old generation by 2 MB per
 * young GC and made each young GC take 7-13 ms instead of 1. Request garbage
 * dies young, so the service is better off without that heuristic
 * (docs/decisions.md has the measurements).
 *
 * Not at startup: any changed V8 flag makes Node reject its built-in code
 * cache for the core modules loaded after it, which slows the start.
 */
export function turnOffAllocationSitePretenuring(): void {
  setFlagsFromString('--no-allocation-site-pretenuring');
}
