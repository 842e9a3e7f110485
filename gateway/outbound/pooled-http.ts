/**
 * HTTP to the servers gw calls on a door's hot path (A2A agents, MCP servers' tools/call): undici's
 * request API over kept-alive pools (one per origin inside each undici Agent), not fetch. fetch
 * builds a Request, a Response and web streams around every call and, for hosts an operator did not
 * trust, a new connection per call; on a small JSON-RPC call that was most of what gw added.
 *
 * The outbound guard still holds: each URL (and each redirect) is vetted (scheme, no credentials,
 * IP literals and reserved names) without a DNS query, and untrusted hosts connect through
 * createGuardedLookup, which resolves at connect time and refuses any non-public answer, so a
 * name rebound to a private address after it was saved cannot be reached. Trusted hosts
 * (TRUSTED_CUSTOM_HOSTS) connect as named. Bounds on the answer are the caller's (answer-cap.ts:
 * readCappedBody, cappedStream).
 */
import { Agent, type Dispatcher } from 'undici';
import { ValidationError } from '../../core/errors.js';
import { answerSource } from './answer-cap.js';
import { ClientTlsPools, type IntegrationTls } from './client-tls-pools.js';
import type { OutboundGuard } from './outbound-guard.js';
import { createGuardedLookup } from './pinned-lookup.js';
import { vetOutboundUrl } from './url-guard.js';

/** The server's answer: status, headers and its body, read (or dropped) by the caller. */
export type PooledAnswer = Dispatcher.ResponseData;

export interface PooledRequest {
  /** POST unless named: agents spoken to over A2A's HTTP+JSON binding also take GET and DELETE. */
  method?: 'GET' | 'POST' | 'DELETE';
  headers: Record<string, string>;
  /** The request body; none for GET and DELETE. */
  body?: string;
  signal?: AbortSignal;
  /** The integration's client certificate (mTLS): the call goes over that integration's own pools. */
  tls?: IntegrationTls;
}

/** How a refused URL is named: the error code, and where the URL came from in words (e.g. "The agent URL"). */
export interface RefusalNaming {
  code: string;
  source: string;
}

const POOL = { keepAliveTimeout: 30_000, keepAliveMaxTimeout: 600_000, headersTimeout: 0, bodyTimeout: 0, pipelining: 1 } as const;
const MAX_REDIRECTS = 5;

interface Target {
  origin: string;
  path: string;
  trusted: boolean;
}

export class PooledHttp {
  private readonly trusted = new Agent(POOL);
  private readonly guarded: Agent;
  private readonly tlsPools: ClientTlsPools;
  /** Vetted URLs split for the dispatcher: a server's endpoint repeats call after call. */
  private readonly vetted = new Map<string, Target>();

  constructor(private readonly guard: OutboundGuard) {
    const lookup = createGuardedLookup(guard.resolve);
    this.guarded = new Agent({ ...POOL, connect: { lookup } });
    this.tlsPools = new ClientTlsPools(POOL, lookup);
  }

  /** POSTs to `url` (or sends `request.method`), following redirects as fetch does (307/308 keep the method, others become a GET), each hop vetted. */
  async post(url: string, request: PooledRequest, naming: RefusalNaming): Promise<PooledAnswer> {
    let method = request.method ?? 'POST';
    for (let hop = 0; ; hop++) {
      const target = await this.vet(url, naming);
      let answer: PooledAnswer;
      try {
        const pool = request.tls ? this.tlsPools.pool(request.tls, target.trusted) : target.trusted ? this.trusted : this.guarded;
        answer = await pool.request({
          origin: target.origin,
          path: target.path,
          method,
          headers: method === 'POST' ? request.headers : withoutBodyHeaders(request.headers),
          body: method === 'POST' ? request.body : undefined,
          signal: request.signal,
        });
      } catch (error) {
        throw refusedAtConnect(error, url, naming) ?? error;
      }
      const location = answer.headers.location;
      if (answer.statusCode < 300 || answer.statusCode >= 400 || typeof location !== 'string') return answer;
      await answer.body.dump();
      if (hop >= MAX_REDIRECTS) throw new TypeError(`more than ${MAX_REDIRECTS} redirects from ${answerSource(url)}`);
      url = new URL(location, url).href;
      if (answer.statusCode !== 307 && answer.statusCode !== 308) method = 'GET';
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.trusted.close(), this.guarded.close(), this.tlsPools.close()]);
  }

  private async vet(url: string, naming: RefusalNaming): Promise<Target> {
    let target = this.vetted.get(url);
    if (!target) {
      const checked = await vetOutboundUrl(url, { trustedHosts: this.guard.trustedHosts, resolveNames: false, param: 'url', ...naming });
      target = { origin: checked.url.origin, path: checked.url.pathname + checked.url.search, trusted: checked.trusted };
      // A query may carry a secret and makes URLs endless: those are vetted each time, not kept.
      if (!checked.url.search) {
        if (this.vetted.size >= 1_000) this.vetted.clear();
        this.vetted.set(url, target);
      }
    }
    return target;
  }
}

function withoutBodyHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (name.toLowerCase() !== 'content-type') out[name] = value;
  return out;
}

/** The guarded lookup's refusal of a non-public address, as the refusal the vetting gives (a 400 with the caller's code). */
function refusedAtConnect(error: unknown, url: string, naming: RefusalNaming): ValidationError | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code ?? (error as { cause?: NodeJS.ErrnoException } | undefined)?.cause?.code;
  if (code !== 'EUNSAFEADDRESS') return undefined;
  return new ValidationError(`${answerSource(url)} resolves to a non-public address; gw does not send requests to loopback, private, link-local, metadata or reserved addresses unless the operator lists the host in TRUSTED_CUSTOM_HOSTS`, 'url', naming.code);
}
