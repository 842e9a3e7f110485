/**
 * Outbound HTTP for provider calls: undici Agents keep one keep-alive pool per origin. Custom
 * hosts an operator did not trust go through a second agent whose DNS lookup refuses non-public
 * answers at connect time (gateway/outbound/pinned-lookup.ts), so a name cannot be rebound to a
 * private address after it was checked. Timeouts are the caller's (UpstreamAttempt): undici's own
 * are off so they never cut a call the caller allowed longer.
 */
import type { EventEmitter } from 'node:events';
import type { Readable } from 'node:stream';
import { Agent, type Dispatcher } from 'undici';
import { boundedMemo } from '../../core/bounded-memo.js';
import { createGuardedLookup } from '../outbound/pinned-lookup.js';
import type { ResolveHost } from '../outbound/url-guard.js';
import type { UpstreamRequest } from '../providers/types.js';

export interface UpstreamClientOptions {
  /**
   * Tests only: provider name -> origin (`http://127.0.0.1:5555`) that replaces the origin of
   * that provider's fixed-host URLs, so fixed-host adapters can be driven against a fake upstream.
   * Never applied to custom hosts.
   */
  originOverrides?: Readonly<Record<string, string>>;
  /** DNS for the guarded agent; injectable so tests never query real DNS. */
  resolve?: ResolveHost;
}

export interface SendOptions {
  provider: string;
  /** The URL's origin came from a custom host (no origin override applies). */
  customHost: boolean;
  /** Connect through the DNS-guarded agent (an untrusted custom host). */
  guarded: boolean;
  signal: AbortSignal | EventEmitter | EmitterSignal;
}

/** An abort signal in emitter form without the rest of EventEmitter (UpstreamAttempt). */
export interface EmitterSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  on(event: 'abort', listener: () => void): unknown;
  once(event: 'abort', listener: () => void): unknown;
  removeListener(event: 'abort', listener: () => void): unknown;
}

/** What the transport sends: a provider request, or a pass-through whose body streams from the client as it arrives (or was read whole to be signed). */
export interface OutboundCall {
  method: UpstreamRequest['method'] | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  headers: Record<string, string>;
  body?: string | Buffer | Readable;
}

const POOL = { keepAliveTimeout: 30_000, keepAliveMaxTimeout: 600_000, headersTimeout: 0, bodyTimeout: 0, pipelining: 1 } as const;

export class UpstreamClient {
  private readonly direct: Agent;
  private readonly guarded: Agent;
  private readonly overrides: ReadonlyMap<string, string>;

  constructor(options: UpstreamClientOptions = {}) {
    this.direct = new Agent(POOL);
    this.guarded = new Agent({ ...POOL, connect: { lookup: createGuardedLookup(options.resolve) } });
    this.overrides = new Map(Object.entries(options.originOverrides ?? {}));
  }

  send(upstream: OutboundCall, options: SendOptions): Promise<Dispatcher.ResponseData> {
    const { origin, path } = splitUrl(this.urlFor(upstream.url, options));
    const dispatcher = options.guarded ? this.guarded : this.direct;
    return dispatcher.request({
      origin,
      path,
      method: upstream.method,
      headers: upstream.headers,
      body: upstream.body,
      // undici reads an emitter signal through on/once/removeListener and `aborted`/`reason` only.
      signal: options.signal as AbortSignal | EventEmitter,
    });
  }

  async close(): Promise<void> {
    await Promise.all([this.direct.close(), this.guarded.close()]);
  }

  private urlFor(url: string, options: SendOptions): string {
    if (options.customHost || this.overrides.size === 0) return url;
    const origin = this.overrides.get(options.provider);
    if (!origin) return url;
    const parsed = new URL(url);
    return origin.replace(/\/+$/, '') + parsed.pathname + parsed.search;
  }
}

interface SplitUrl {
  origin: string;
  path: string;
}

/**
 * Origin and path of an absolute URL, as the dispatcher takes them. Provider URLs repeat call
 * after call, and parsing one costs more than the rest of dispatching it: they are remembered,
 * except those with a query string (some providers take a key there).
 */
const splitUrl = boundedMemo(
  (url): SplitUrl & { query: boolean } => {
    const parsed = new URL(url);
    return { origin: parsed.origin, path: parsed.pathname + parsed.search, query: parsed.search !== '' };
  },
  1_000,
  (split) => !split.query,
);
