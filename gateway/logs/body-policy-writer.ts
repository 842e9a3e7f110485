import type { RequestLogEntry } from '../../core/request-log.js';
import type { EffectiveSecurity } from '../../core/security/settings.js';
import type { LogWriter } from './batching-log-sink.js';

export type SecurityOf = (organisationId: string, workspaceId: string) => Promise<EffectiveSecurity>;

/** The entries with their bodies dropped where the workspace's `logging.store_request_bodies` is off; tokens, cost and the rest stay. */
export async function withBodyPolicy(entries: RequestLogEntry[], securityOf: SecurityOf): Promise<RequestLogEntry[]> {
  const stored = new Map<string, boolean>();
  for (const entry of entries) {
    const key = `${entry.organisation_id}\n${entry.workspace_id}`;
    if (!stored.has(key)) stored.set(key, (await securityOf(entry.organisation_id, entry.workspace_id)).storeRequestBodies);
  }
  return entries.map((entry) =>
    stored.get(`${entry.organisation_id}\n${entry.workspace_id}`) ? entry : { ...entry, request_body: null, response_body: null },
  );
}

/**
 * The request log writer under each workspace's body policy: bodies are dropped at write time,
 * so neither the table nor the exports read from it ever hold them. Settings come from the
 * saved-resources cache, one lookup per workspace per batch.
 */
export class BodyPolicyWriter implements LogWriter {
  constructor(
    private readonly inner: LogWriter,
    private readonly securityOf: SecurityOf,
  ) {}

  async insertMany(entries: RequestLogEntry[]): Promise<void> {
    await this.inner.insertMany(await withBodyPolicy(entries, this.securityOf));
  }

  close(): Promise<void> {
    return this.inner.close?.() ?? Promise.resolve();
  }
}
