/**
 * The one way the console talks to gw: fetch on the same origin, the credential added to every
 * call, and every non-2xx answer turned into an ApiFailure carrying the API's own error message.
 */
export type Credential = { kind: 'key'; key: string } | { kind: 'session'; csrf: string | undefined };

export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly param: string | null = null,
  ) {
    super(message);
  }
}

type QueryValue = string | number | boolean | null | undefined;
export type Query = Record<string, QueryValue>;

/** `?a=1&b=2` from the set values only (empty strings, null and undefined are left out). */
export function queryString(query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === '') continue;
    params.set(name, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** The error body's message when the answer has one, else the HTTP status. */
export async function failureOf(res: Response): Promise<ApiFailure> {
  const text = await res.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { error?: { code?: string; message?: string; param?: string | null } };
    if (body.error?.message) return new ApiFailure(res.status, body.error.code ?? `http_${res.status}`, body.error.message, body.error.param ?? null);
  } catch {
    // Not JSON: fall through to the status line.
  }
  return new ApiFailure(res.status, `http_${res.status}`, `${res.status} ${res.statusText || 'request failed'}`);
}

export interface Api {
  readonly credential: Credential;
  /** The raw response (streams, downloads); throws ApiFailure unless 2xx. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  get<T>(path: string, query?: Query): Promise<T>;
  send<T>(method: 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown, headers?: Record<string, string>): Promise<T>;
}

export function authHeaders(credential: Credential, method: string): Record<string, string> {
  if (credential.kind === 'key') return { 'x-gw-api-key': credential.key };
  // Writes made with the session cookie carry its CSRF token (docs/identity.md).
  return method !== 'GET' && method !== 'HEAD' && credential.csrf ? { 'x-gw-csrf-token': credential.csrf } : {};
}

export function createApi(credential: Credential, origin = ''): Api {
  const api: Api = {
    credential,
    async fetch(path, init = {}) {
      const method = init.method ?? 'GET';
      const headers = { ...authHeaders(credential, method), ...(init.headers as Record<string, string> | undefined) };
      let res: Response;
      try {
        res = await fetch(origin + path, { ...init, method, headers, credentials: 'same-origin' });
      } catch (error) {
        throw new ApiFailure(0, 'network_error', `gw did not answer (${(error as Error).message})`);
      }
      if (!res.ok) throw await failureOf(res);
      return res;
    },
    async get(path, query) {
      const res = await api.fetch(path + queryString(query));
      return (await res.json()) as never;
    },
    async send(method, path, body, headers = {}) {
      const init: RequestInit = { method, headers: { ...headers } };
      if (body !== undefined) {
        init.body = JSON.stringify(body);
        (init.headers as Record<string, string>)['content-type'] = 'application/json';
      }
      const res = await api.fetch(path, init);
      const text = await res.text();
      return (text ? JSON.parse(text) : undefined) as never;
    },
  };
  return api;
}
