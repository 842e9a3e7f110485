import { BlockList, isIP } from 'node:net';

/** An IPv4 address written in IPv6 form (`::ffff:10.0.0.1`, what a dual-stack socket reports) as plain IPv4. */
export function plainAddress(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1]! : address;
}

/** Why a range is not one (undefined when it is): an address, or an address with a prefix length (`10.0.0.0/8`, `2001:db8::/32`). */
export function rangeProblem(range: string): string | undefined {
  const [address, prefix, extra] = range.trim().split('/');
  const family = isIP(address ?? '');
  if (extra !== undefined || family === 0) return `${range} is not an IP address or CIDR range`;
  if (prefix === undefined) return undefined;
  const bits = Number(prefix);
  if (!/^\d{1,3}$/.test(prefix) || bits > (family === 4 ? 32 : 128)) return `${range} has an invalid prefix length`;
  return undefined;
}

/** A set of addresses and CIDR ranges, checked in constant-ish time per address; ranges must have passed rangeProblem. */
export class AddressRanges {
  private readonly list = new BlockList();
  readonly size: number;

  constructor(ranges: readonly string[]) {
    for (const range of ranges) {
      // Saves refuse bad ranges; one stored before that rule is skipped (it lets nobody in).
      if (rangeProblem(range)) continue;
      const [address, prefix] = range.trim().split('/') as [string, string | undefined];
      const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
      if (prefix === undefined) this.list.addAddress(plainAddress(address), family);
      else this.list.addSubnet(address, Number(prefix), family);
    }
    this.size = ranges.length;
  }

  has(address: string): boolean {
    const plain = plainAddress(address);
    const family = isIP(plain);
    if (family === 0) return false;
    return this.list.check(plain, family === 6 ? 'ipv6' : 'ipv4');
  }
}

/**
 * The client's address: the socket peer, unless that peer is a trusted proxy; then the
 * X-Forwarded-For chain is read from the right, skipping trusted proxies, and the first address
 * that is not one is the client (entries a client wrote itself sit further left and are never read).
 */
export function clientAddress(peer: string, forwardedFor: string | string[] | undefined, trustedProxies: AddressRanges): string {
  const socketAddress = plainAddress(peer);
  if (!forwardedFor || trustedProxies.size === 0 || !trustedProxies.has(socketAddress)) return socketAddress;
  const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor)
    .split(',')
    .map((hop) => plainAddress(hop.trim()))
    .filter(Boolean);
  let client = socketAddress;
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i]!;
    if (isIP(hop) === 0) break; // garbage: stop at the last address we could trust
    client = hop;
    if (!trustedProxies.has(hop)) break;
  }
  return client;
}
