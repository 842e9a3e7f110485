/**
 * A gw test app with a fake OpenAI upstream beside it, for gateway tests: TRUSTED_CUSTOM_HOSTS
 * lets custom hosts reach the fake on 127.0.0.1, the fixed-host providers (openai, azure-openai,
 * groq) are pointed at it, every request log entry is captured, and `openai()` builds the
 * official client pointed at gw.
 */
import OpenAI from 'openai';
import type { RequestLogEntry } from '../../core/request-log.js';
import type { Engine } from './engines.js';
import { startFakeOpenAi, type FakeOpenAi } from './fake-openai.js';
import { startTestApp, type TestApp, type TestAppOptions } from './test-app.js';

export interface GatewayApp {
  app: TestApp;
  fake: FakeOpenAi;
  /** Log entries recorded so far, in order. */
  logs: RequestLogEntry[];
  /** The official client against gw, with the admin key and the given gw headers. */
  openai(headers?: Record<string, string>): OpenAI;
  close(): Promise<void>;
}

export async function startGatewayApp(
  options: { engine?: Engine; env?: Record<string, string>; logger?: TestAppOptions['logger']; now?: TestAppOptions['now']; resolveHost?: TestAppOptions['resolveHost'] } = {},
): Promise<GatewayApp> {
  const fake = await startFakeOpenAi();
  const app = await startTestApp({
    engine: options.engine,
    logger: options.logger,
    now: options.now,
    resolveHost: options.resolveHost,
    env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1', ...options.env },
    upstreamOriginOverrides: { openai: fake.origin, 'azure-openai': fake.origin, groq: fake.origin },
  });
  const logs: RequestLogEntry[] = [];
  recordLogsInto(app, logs);
  return {
    app,
    fake,
    logs,
    openai: (headers = {}) => new OpenAI({ apiKey: 'sk-upstream', baseURL: `${app.url}/v1`, maxRetries: 0, defaultHeaders: { 'x-gw-api-key': app.adminKey, ...headers } }),
    async close() {
      await app.close();
      await fake.close();
    },
  };
}

/** Waits until the log holds `count` entries (streams log when they end, after the client saw [DONE]). */
export async function logsSettled(gateway: GatewayApp, count: number): Promise<RequestLogEntry[]> {
  for (let i = 0; i < 200 && gateway.logs.length < count; i++) await new Promise((resolve) => setTimeout(resolve, 10));
  return gateway.logs;
}

/** Every request log entry the app records is also pushed onto `logs`, as it is recorded (before the writer stores it). */
export function recordLogsInto(app: TestApp, logs: RequestLogEntry[]): void {
  const sink = app.services.requestLogs;
  const record = sink.record.bind(sink);
  sink.record = (entry) => {
    logs.push(entry);
    record(entry);
  };
}
