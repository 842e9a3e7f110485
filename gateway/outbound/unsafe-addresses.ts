import { BlockList, isIPv4, isIPv6 } from 'node:net';

/**
 * Addresses gw must never connect to on a caller's say-so: anything that is not a public
 * unicast destination (IANA special-purpose registries, RFC 6890 and successors).
 */
const UNSAFE_V4: ReadonlyArray<readonly [string, number]> = [
  ['0.0.0.0', 8], // "this network", includes the unspecified address
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, includes cloud metadata 169.254.169.254
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation TEST-NET-1
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation TEST-NET-2
  ['203.0.113.0', 24], // documentation TEST-NET-3
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, includes broadcast 255.255.255.255
];

const UNSAFE_V6: ReadonlyArray<readonly [string, number]> = [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard-only
  ['2001::', 23], // IETF protocol assignments: Teredo, benchmarking, ORCHID
  ['2001:db8::', 32], // documentation
  ['3fff::', 20], // documentation (RFC 9637)
  ['fc00::', 7], // unique local, includes AWS metadata fd00:ec2::254
  ['fe80::', 10], // link-local
  ['fec0::', 10], // deprecated site-local
  ['ff00::', 8], // multicast
];

const unsafeRanges = new BlockList();
for (const [network, prefix] of UNSAFE_V4) unsafeRanges.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of UNSAFE_V6) unsafeRanges.addSubnet(network, prefix, 'ipv6');

/** Names that reach the host itself or a cloud metadata service whatever DNS says. */
export function isUnsafeHostname(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return (
    name === 'localhost' ||
    name.endsWith('.localhost') ||
    name === 'metadata.google.internal' ||
    name === 'metadata.goog' ||
    name === 'instance-data' ||
    name === 'instance-data.ec2.internal'
  );
}

/** True when an IP literal (v4, or v6 without brackets) is not a public unicast address. */
export function isUnsafeAddress(address: string): boolean {
  if (isIPv4(address)) return unsafeRanges.check(address, 'ipv4');
  if (!isIPv6(address)) return true; // not an address at all: refuse rather than guess
  if (unsafeRanges.check(address, 'ipv6')) return true;
  const embedded = embeddedIPv4(address);
  return embedded !== undefined && unsafeRanges.check(embedded, 'ipv4');
}

/**
 * The IPv4 address an IPv6 form carries and that a host or translator would actually reach:
 * IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d), NAT64 (64:ff9b::/96) and 6to4 (2002::/16).
 */
function embeddedIPv4(address: string): string | undefined {
  const words = ipv6Words(address);
  const zeroes = (from: number, to: number) => words.slice(from, to).every((word) => word === 0);
  const v4 = (high: number, low: number) => `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
  if (zeroes(0, 5) && (words[5] === 0xffff || words[5] === 0)) return v4(words[6]!, words[7]!);
  if (words[0] === 0x64 && words[1] === 0xff9b && zeroes(2, 6)) return v4(words[6]!, words[7]!);
  if (words[0] === 0x2002) return v4(words[1]!, words[2]!);
  return undefined;
}

/** The eight 16-bit words of a valid IPv6 literal, expanding "::" and a dotted IPv4 tail. */
function ipv6Words(address: string): number[] {
  let text = address.toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((word) => parseInt(word, 16)));
  const first = parse(head);
  if (tail === undefined) return first;
  const last = parse(tail);
  return [...first, ...new Array<number>(8 - first.length - last.length).fill(0), ...last];
}
