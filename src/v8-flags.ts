import { setFlagsFromString } from 'node:v8';

/**
 * Imported first by main.ts, so it holds however the server is started.
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
 */
setFlagsFromString('--no-allocation-site-pretenuring');
