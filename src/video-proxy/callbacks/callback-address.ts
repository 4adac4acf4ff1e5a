import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/** Loopback, private, link-local, CGNAT, unspecified and unique-local ranges. */
const NON_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
] as const) {
  NON_PUBLIC.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
] as const) {
  NON_PUBLIC.addSubnet(network, prefix, 'ipv6');
}

export function isNonPublicAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return NON_PUBLIC.check(mapped[1], 'ipv4');
  const family = isIP(address);
  return family === 0 ? true : NON_PUBLIC.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

function hostOf(url: string): string {
  return new URL(url).hostname.replace(/^\[|\]$/g, '').toLowerCase();
}

/** A callback URL that names a non-public address outright (checked when a task is created). */
export function namesNonPublicHost(url: string): boolean {
  const host = hostOf(url);
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  return isIP(host) !== 0 && isNonPublicAddress(host);
}

/** Whether any address the callback host resolves to is non-public (checked before each delivery). */
export async function resolvesToNonPublic(url: string): Promise<boolean> {
  const host = hostOf(url);
  if (isIP(host) !== 0) return isNonPublicAddress(host);
  const addresses = await lookup(host, { all: true });
  return addresses.some(({ address }) => isNonPublicAddress(address));
}
