/**
 * `POST /v1/logs` as an importer sends it: calls of 100 custom logs, a few in flight, timestamps
 * either recent (the last minute) or spread over 30 days (a history import, where each call's
 * rows fall in many rollup buckets).
 */
import { Pool } from 'undici';
import { random } from '../seed-logs.js';

export const LOGS_PER_CALL = 100;
const DAY = 86_400_000;
const MODELS = [['openai', 'gpt-4o'], ['openai', 'gpt-4o-mini'], ['anthropic', 'claude-sonnet-4-5'], ['vertex-ai', 'gemini-2.0-flash']] as const;
const ENVS = ['prod', 'staging', 'dev'];

export type Spread = 'recent' | 'spread';

/** The request bodies of one run; each row's trace id starts with `tracePrefix`. */
export function ingestBodies(rows: number, spread: Spread, tracePrefix: string, now = Date.now()): string[] {
  const rand = random(spread === 'recent' ? 1 : 2);
  const window = spread === 'recent' ? 60_000 : 30 * DAY;
  const bodies: string[] = [];
  for (let from = 0; from < rows; from += LOGS_PER_CALL) {
    const logs = [];
    for (let i = from; i < Math.min(rows, from + LOGS_PER_CALL); i++) {
      const [provider, model] = MODELS[Math.floor(rand() * MODELS.length)]!;
      const status = rand() < 0.03 ? 500 : 200;
      const prompt = 50 + Math.floor(rand() * 2000);
      const completion = status === 200 ? 20 + Math.floor(rand() * 800) : 0;
      logs.push({
        trace_id: `${tracePrefix}${i}`,
        created_at: new Date(now - Math.floor(rand() * window)).toISOString(),
        provider,
        model,
        status,
        latency_ms: Math.floor(200 * Math.exp(rand() * 2.5)),
        prompt_tokens: prompt,
        completion_tokens: completion,
        cost: (prompt * 2.5 + completion * 10) / 1e6,
        metadata: { _user: `user-${Math.floor(rand() * 50)}`, env: ENVS[Math.floor(rand() * ENVS.length)]! },
        request: { model, messages: [{ role: 'user', content: 'Summarise the quarterly report in three bullet points.' }] },
        response: status === 200 ? { choices: [{ message: { role: 'assistant', content: 'Revenue up; costs flat; hiring paused.' } }] } : { error: { message: 'upstream error' } },
      });
    }
    bodies.push(JSON.stringify({ logs }));
  }
  return bodies;
}

export interface IngestResult {
  seconds: number;
  /** Count per HTTP status; transport failures under "error". */
  statuses: Record<string, number>;
}

/** Sends every body, `inFlight` calls at a time, and times the whole. */
export async function ingest(origin: string, adminKey: string, bodies: readonly string[], inFlight: number): Promise<IngestResult> {
  const pool = new Pool(origin, { connections: inFlight, pipelining: 1 });
  const statuses: Record<string, number> = {};
  let next = 0;
  const worker = async () => {
    while (next < bodies.length) {
      const body = bodies[next++]!;
      let status: string;
      try {
        const answer = await pool.request({ method: 'POST', path: '/v1/logs', headers: { 'content-type': 'application/json', 'x-gw-api-key': adminKey }, body, headersTimeout: 600_000, bodyTimeout: 600_000 });
        await answer.body.dump();
        status = String(answer.statusCode);
      } catch {
        status = 'error';
      }
      statuses[status] = (statuses[status] ?? 0) + 1;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: inFlight }, worker));
  const seconds = (performance.now() - started) / 1000;
  await pool.close();
  return { seconds, statuses };
}
