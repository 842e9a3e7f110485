/**
 * Kept-alive pools that present a client certificate (mTLS to an agent). A TLS connection keeps
 * the certificate it was opened with, so each integration version gets its own undici Agent (a
 * pool per origin inside), never shared with another integration's calls; a new version of the
 * integration (a changed certificate, say) replaces its pools and closes the old ones once their
 * requests in flight finish. Untrusted hosts connect through the guarded lookup, as without mTLS.
 */
import type { LookupFunction } from 'node:net';
import { Agent } from 'undici';
import type { TlsClient } from './guarded-fetch.js';

/** A stored integration's client certificate: `id` and `version` name the pool it is presented on. */
export interface IntegrationTls extends TlsClient {
  id: string;
  version: string;
}

interface Pools {
  version: string;
  trusted?: Agent;
  guarded?: Agent;
}

export class ClientTlsPools {
  private readonly byIntegration = new Map<string, Pools>();

  constructor(
    private readonly options: Agent.Options,
    private readonly guardedLookup: LookupFunction,
  ) {}

  /** The pool presenting `tls`, for a trusted host (connects as named) or an untrusted one (guarded lookup). */
  pool(tls: IntegrationTls, trusted: boolean): Agent {
    let pools = this.byIntegration.get(tls.id);
    if (pools?.version !== tls.version) {
      if (pools) closePools(pools);
      pools = { version: tls.version };
      this.byIntegration.set(tls.id, pools);
    }
    const connect = { cert: tls.cert, key: tls.key, ...(tls.ca ? { ca: tls.ca } : {}), ...(trusted ? {} : { lookup: this.guardedLookup }) };
    if (trusted) return (pools.trusted ??= new Agent({ ...this.options, connect }));
    return (pools.guarded ??= new Agent({ ...this.options, connect }));
  }

  async close(): Promise<void> {
    await Promise.all([...this.byIntegration.values()].map(closePools));
    this.byIntegration.clear();
  }
}

/** close() lets requests in flight, bodies included, finish first. */
function closePools(pools: Pools): Promise<void> {
  return Promise.all([pools.trusted?.close(), pools.guarded?.close()]).then(() => undefined);
}
