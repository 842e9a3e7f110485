import { randomUUID } from 'node:crypto';
import type { RequestLogEntry } from '../../core/request-log.js';
import type { TestApp } from '../helpers/test-app.js';

/** A complete gateway log entry with plain defaults; tests override what they assert on. */
export function logEntry(overrides: Partial<RequestLogEntry> & Pick<RequestLogEntry, 'organisation_id' | 'workspace_id'>): RequestLogEntry {
  return {
    id: randomUUID(),
    endpoint: 'chat.completions',
    trace_id: randomUUID(),
    span_id: null,
    parent_span_id: null,
    span_name: null,
    created_at: Date.parse('2026-11-20T12:00:00.000Z'),
    api_key_id: randomUUID(),
    config_id: null,
    provider: 'openai',
    model: 'gpt-4o-mini',
    status: 200,
    latency_ms: 100,
    first_byte_ms: null,
    stream: false,
    prompt_tokens: 10,
    completion_tokens: 5,
    total_tokens: 15,
    cost: 0.001,
    cache_status: 'MISS',
    retry_count: 0,
    route: [{ path: '0', provider: 'openai', status: 200 }],
    metadata: {},
    request_headers: { 'content-type': 'application/json' },
    request_body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] },
    response_body: { id: 'chatcmpl-1', object: 'chat.completion' },
    error: null,
    guardrail_results: null,
    ...overrides,
  };
}

/** Records entries through the app's real log writer and waits until they are written. */
export async function seedLogs(app: TestApp, entries: RequestLogEntry[]): Promise<void> {
  for (const entry of entries) app.services.requestLogs.record(entry);
  await app.services.requestLogs.flush();
}

export async function workspaceKey(app: TestApp, workspaceId: string, scopes: string[]): Promise<string> {
  const created = await app.http
    .post('/v1/api-keys/workspace/service')
    .set({ 'x-gw-api-key': app.adminKey })
    .send({ name: `ws-${randomUUID().slice(0, 8)}`, workspace_id: workspaceId, scopes });
  if (created.status !== 201) throw new Error(`workspace key: ${created.status} ${JSON.stringify(created.body)}`);
  return created.body.key as string;
}

export async function otherWorkspace(app: TestApp, slug: string, settings: Record<string, unknown> = {}): Promise<string> {
  const workspace = await app.services.store.workspaces.create(
    { organisation_id: app.boot.organisationId, name: slug, slug, settings },
    new Date().toISOString(),
  );
  return workspace.id;
}
