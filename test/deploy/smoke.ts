/**
 * What the image and npx tests ask of a gw started the way a user starts it: ready in time, a
 * `mock_response` chat through the official client, its row in the request log, the row still
 * there after a restart.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import OpenAI from 'openai';

/** The README's promise: /ready answers 200 within this time of the start. */
export const READY_WITHIN_MS = 30_000;
/** Rows are written in batches within a second (GW_LOG_FLUSH_INTERVAL_MS); polled for up to this long. */
const LOG_ROW_WITHIN_MS = 15_000;

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Polls /ready until 200; fails with what gw printed (`output()`) when the deadline passes. */
export async function waitUntilReady(baseUrl: string, output: () => string, withinMs = READY_WITHIN_MS): Promise<void> {
  const deadline = Date.now() + withinMs;
  let last = 'no answer';
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`${baseUrl}/ready`, { signal: AbortSignal.timeout(2000) });
      if (res.status === 200) return;
      last = `${res.status} ${await res.text()}`;
    } catch (error) {
      last = (error as Error).message;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  assert.fail(`gw was not ready within ${withinMs} ms (last: ${last})\n--- gw's output ---\n${output()}`);
}

/** A chat answered by gw itself (no provider key, no upstream), under a trace id of ours. */
export async function mockChat(baseUrl: string, adminKey: string): Promise<string> {
  const traceId = randomUUID();
  const client = new OpenAI({
    baseURL: `${baseUrl}/v1`,
    apiKey: 'no-provider-key',
    maxRetries: 0,
    defaultHeaders: { 'x-gw-api-key': adminKey, 'x-gw-provider': 'openai', 'x-gw-trace-id': traceId },
  });
  const answer = await client.chat.completions.create({
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: 'Hello from the deploy test' }],
    mock_response: 'Hello from gw',
  } as never);
  assert.equal(answer.choices[0]!.message.content, 'Hello from gw');
  return traceId;
}

interface LogRow {
  trace_id: string;
  status: number;
  model: string;
}

async function logRows(baseUrl: string, adminKey: string, traceId: string): Promise<LogRow[]> {
  const res = await fetch(`${baseUrl}/v1/logs?trace_id=${encodeURIComponent(traceId)}`, { headers: { 'x-gw-api-key': adminKey } });
  assert.equal(res.status, 200, await res.clone().text());
  return ((await res.json()) as { data: LogRow[] }).data;
}

/** Polls the request log API until the trace's row is there (rows are written in batches). */
export async function waitForLogRow(baseUrl: string, adminKey: string, traceId: string): Promise<LogRow> {
  const deadline = Date.now() + LOG_ROW_WITHIN_MS;
  for (;;) {
    const rows = await logRows(baseUrl, adminKey, traceId);
    if (rows.length > 0) {
      assert.equal(rows.length, 1);
      assert.equal(rows[0]!.status, 200);
      assert.equal(rows[0]!.model, 'gpt-4o-mini');
      return rows[0]!;
    }
    if (Date.now() > deadline) assert.fail(`no log row for trace ${traceId} within ${LOG_ROW_WITHIN_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The row is read straight away (after a restart: kept by the store, not by a writer's queue). */
export async function assertLogRowKept(baseUrl: string, adminKey: string, traceId: string): Promise<void> {
  const rows = await logRows(baseUrl, adminKey, traceId);
  assert.equal(rows.length, 1, `the log row of trace ${traceId} is gone after the restart`);
}
