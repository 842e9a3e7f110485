/**
 * For suites that feed gw arbitrary input (a generated value may happen to be a URL gw calls out
 * to): no DNS query and no connection leaves loopback while installed. Names other than
 * localhost do not resolve; a socket to an IP outside 127.0.0.0/8 and ::1 fails before it opens.
 */
import dns from 'node:dns';
import net from 'node:net';

function isLoopback(address: string): boolean {
  const plain = address.replace(/^\[|\]$/g, '');
  if (net.isIPv4(plain)) return plain.startsWith('127.');
  if (net.isIPv6(plain)) return plain === '::1' || /^::ffff:127\./i.test(plain);
  return false;
}

function notFound(hostname: string): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(`loopback-only test: ${hostname} does not resolve`);
  error.code = 'ENOTFOUND';
  return error;
}

export function loopbackOnly(): () => void {
  const lookup = dns.lookup;
  const promisesLookup = dns.promises.lookup;
  const connect = net.Socket.prototype.connect;

  dns.lookup = ((hostname: string, ...rest: unknown[]) => {
    const callback = rest.at(-1) as (error: NodeJS.ErrnoException) => void;
    if (hostname === 'localhost' || isLoopback(hostname)) return (lookup as (...args: unknown[]) => unknown)(hostname, ...rest);
    process.nextTick(() => callback(notFound(hostname)));
  }) as typeof dns.lookup;
  dns.promises.lookup = (async (hostname: string, options?: unknown) => {
    if (hostname === 'localhost' || isLoopback(hostname)) return promisesLookup(hostname, options as dns.LookupOptions);
    throw notFound(hostname);
  }) as typeof dns.promises.lookup;
  net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]) {
    const [first, second] = args;
    const options = (typeof first === 'object' && first !== null ? first : { host: typeof second === 'string' ? second : undefined }) as { host?: string; path?: string };
    const host = options.host ?? 'localhost';
    if (!options.path && net.isIP(host.replace(/^\[|\]$/g, '')) && !isLoopback(host)) {
      process.nextTick(() => this.destroy(new Error(`loopback-only test: refused a connection to ${host}`)));
      return this;
    }
    return (connect as (...a: unknown[]) => net.Socket).apply(this, args);
  } as typeof net.Socket.prototype.connect;

  return () => {
    dns.lookup = lookup;
    dns.promises.lookup = promisesLookup;
    net.Socket.prototype.connect = connect;
  };
}
