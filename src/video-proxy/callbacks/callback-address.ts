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
  ['192.0.0.0', 24],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  NON_PUBLIC.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
  ['::', 96],
  ['64:ff9b::', 96],
  ['2002::', 16],
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

/** A callback URL that names a non-public address outright (checked when a task is created). Unparsable counts as refused. */
export function namesNonPublicHost(url: string): boolean {
  let host: string;
  try {
    host = hostOf(url);
  } catch {
    return true;
  }
  if (host.endsWith('.')) host = host.slice(0, -1);
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  return isIP(host) !== 0 && isNonPublicAddress(host);
}
