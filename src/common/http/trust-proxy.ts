import { IncomingMessage } from 'node:http';
import proxyaddr from 'proxy-addr';

/** Whether the hop at `address`, `hop` steps from this process (0: the socket's peer), is a proxy we trust. */
export type ProxyTrust = (address: string, hop: number) => boolean;

/** TRUST_PROXY unset: no hop is a proxy, so the client address is the socket's (X-Forwarded-For is ignored). */
const TRUST_NONE: ProxyTrust = () => false;

/**
 * TRUST_PROXY with Express's `trust proxy` semantics: a hop count (that many
 * proxies in front, whatever their addresses), or a comma-separated list of
 * addresses, CIDRs and the names `loopback`, `linklocal` and `uniquelocal`.
 * Compiled once into the function Express's `trust proxy` setting and the
 * request log both use, so they cannot read the same value differently. `true` (trust every hop)
 * is not offered: it lets any client name its own address. Throws on an
 * address proxy-addr cannot parse.
 */
export function parseTrustProxy(value: string | undefined): ProxyTrust {
  if (value === undefined) return TRUST_NONE;
  if (/^\d+$/.test(value.trim())) {
    const hops = Number(value);
    return (_address, hop) => hop < hops;
  }
  const entries = value.split(',').map((entry) => entry.trim());
  if (entries.some((entry) => entry === '')) {
    throw new Error('must be a hop count or a comma-separated list of addresses, CIDRs, loopback, linklocal or uniquelocal');
  }
  return proxyaddr.compile(entries);
}

/**
 * The client's address: the socket's peer, or, through trusted proxies, the
 * nearest untrusted address in X-Forwarded-For: the same rule as Express's
 * `req.ip`, for code that holds Node's own request.
 */
export function clientAddress(req: IncomingMessage, trust: ProxyTrust): string {
  return proxyaddr(req, trust);
}
