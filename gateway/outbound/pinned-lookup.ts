import type { LookupAddress, LookupOptions } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { isUnsafeAddress } from './unsafe-addresses.js';
import { resolveAllAddresses, type ResolveHost, type VettedOutboundUrl } from './url-guard.js';

/*
 * DNS rebinding: a name can answer a public address when vetOutboundUrl checks it and
 * 127.0.0.1 a moment later when the socket connects. Both functions here are `lookup` options
 * for net.connect / tls.connect, which undici passes through from `connect`:
 *
 *   new Agent({ connect: { lookup: pinnedLookup(vetted) } })        // one vetted URL (webhook, token fetch)
 *   new Agent({ connect: { lookup: createGuardedLookup() } })       // one shared agent for untrusted custom hosts
 *
 * Either way the socket connects to an address that was checked, while the URL's host name
 * still goes out in Host and TLS SNI and the certificate is verified against it. IP-literal
 * hosts never reach `lookup` (vetOutboundUrl has checked them). Trusted hosts (vetted.trusted)
 * use the ordinary dispatcher.
 */

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

function answer(addresses: string[], options: LookupOptions, callback: LookupCallback): void {
  const wanted = options.family === 4 || options.family === 6 ? options.family : undefined;
  const entries = addresses.map((address) => ({ address, family: isIP(address) })).filter((entry) => !wanted || entry.family === wanted);
  if (entries.length === 0) {
    const error: NodeJS.ErrnoException = new Error(`no IPv${wanted} address to connect to`);
    error.code = 'ENOTFOUND';
    callback(error, '');
  } else if (options.all) callback(null, entries);
  else callback(null, entries[0]!.address, entries[0]!.family);
}

/** Connects to exactly the address vetOutboundUrl checked, whatever DNS says now. */
export function pinnedLookup(vetted: VettedOutboundUrl): LookupFunction {
  const address = vetted.address;
  if (address === undefined) throw new Error('pinnedLookup needs an untrusted, vetted URL; trusted hosts connect as named');
  return ((_hostname: string, options: LookupOptions, callback: LookupCallback) =>
    answer([address], options, callback)) as LookupFunction;
}

/** Resolves at connect time and refuses the connection if any answer is non-public. */
export function createGuardedLookup(resolve: ResolveHost = resolveAllAddresses): LookupFunction {
  return ((hostname: string, options: LookupOptions, callback: LookupCallback) => {
    resolve(hostname).then(
      (addresses) => {
        const unsafe = addresses.find(isUnsafeAddress);
        if (addresses.length === 0 || unsafe !== undefined) {
          const error: NodeJS.ErrnoException = new Error(
            unsafe === undefined ? `${hostname} did not resolve` : `${hostname} resolves to the non-public address ${unsafe}`,
          );
          error.code = unsafe === undefined ? 'ENOTFOUND' : 'EUNSAFEADDRESS';
          callback(error, '');
          return;
        }
        answer(addresses, options, callback);
      },
      (error: NodeJS.ErrnoException) => callback(error, ''),
    );
  }) as LookupFunction;
}
