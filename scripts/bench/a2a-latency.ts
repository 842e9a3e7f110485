/**
 * The A2A row of `make bench`: `SendMessage` made with the A2A SDK's client straight to an
 * SDK-built agent, and the same call through gw's A2A door (key check, agent lookup, limits,
 * guardrail lookup, the agent call, the log entry). Calls are sequential, so the difference is the
 * latency gw adds per call.
 */
import { randomUUID } from 'node:crypto';
import { Role } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client';
import { cpuPerCall, type BenchOptions, type LatencyResult } from './mcp-latency.js';

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

function clientFor(baseUrl: string, fetchImpl: typeof fetch): Promise<Client> {
  const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [new JsonRpcTransportFactory({ fetchImpl })], cardResolver: new DefaultAgentCardResolver({ fetchImpl }) }));
  return factory.createFromUrl(baseUrl);
}

async function timeCalls(client: Client, warmup: number, calls: number): Promise<LatencyResult> {
  const send = (text: string) =>
    client.sendMessage({ tenant: '', configuration: undefined, metadata: undefined, message: { messageId: randomUUID(), role: Role.ROLE_USER, parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' }], contextId: '', taskId: '', metadata: undefined, extensions: [], referenceTaskIds: [] } });
  for (let i = 0; i < warmup; i++) await send('warm');
  const times: number[] = [];
  for (let i = 0; i < calls; i++) {
    const started = performance.now();
    await send(`call ${i}`);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { calls, p50Ms: percentile(times, 50), p99Ms: percentile(times, 99) };
}

/** Registers the agent in gw (its card fetched by gw), then times the direct path, then the path through gw. */
export async function measureA2a(gwUrl: string, adminKey: string, agentUrl: string, options: BenchOptions): Promise<{ direct: LatencyResult; gw: LatencyResult; gwCpuMicros?: number }> {
  const admin = { 'x-gw-api-key': adminKey, 'content-type': 'application/json' };
  const fetched = await fetch(`${gwUrl}/v2/agent-integrations/fetch-agent-card`, { method: 'POST', headers: admin, body: JSON.stringify({ url: agentUrl }) });
  const card = (await fetched.json()) as { agent_card?: unknown };
  if (fetched.status !== 200) throw new Error(`bench: agent card not fetched: ${JSON.stringify(card)}`);
  const created = await fetch(`${gwUrl}/v2/agent-integrations`, { method: 'POST', headers: admin, body: JSON.stringify({ name: 'bench agent', slug: 'bench-agent', url: agentUrl, agent_card: card.agent_card }) });
  const integration = (await created.json()) as { gateway_url?: string };
  if (created.status !== 201 || !integration.gateway_url) throw new Error(`bench: agent integration not created: ${JSON.stringify(integration)}`);
  // The card names gw by GW_PUBLIC_URL; the bench's gw listens elsewhere.
  const publicOrigin = new URL(integration.gateway_url).origin;
  const throughGw = ((input: string | URL | Request, init?: RequestInit) => {
    const url = (typeof input === 'string' ? input : input instanceof URL ? input.href : input.url).replace(publicOrigin, gwUrl);
    return fetch(url, { ...init, headers: { ...Object.fromEntries(new Headers(init?.headers)), 'x-gw-api-key': adminKey } });
  }) as typeof fetch;
  const direct = await timeCalls(await clientFor(agentUrl, fetch), options.warmup, options.calls);
  const cpuBefore = await options.gwCpuMicros?.();
  const gw = await timeCalls(await clientFor(`${gwUrl}/a2a/bench-agent/`, throughGw), options.warmup, options.calls);
  const cpuAfter = await options.gwCpuMicros?.();
  return { direct, gw, gwCpuMicros: cpuPerCall(cpuBefore, cpuAfter, options) };
}

export function reportA2a({ direct, gw, gwCpuMicros }: { direct: LatencyResult; gw: LatencyResult; gwCpuMicros?: number }): void {
  console.log(`\nA2A SendMessage, sequential, ${gw.calls} calls each`);
  console.log(`  direct to the agent: p50 ${direct.p50Ms.toFixed(3)} ms  p99 ${direct.p99Ms.toFixed(3)} ms`);
  console.log(`  through gw:          p50 ${gw.p50Ms.toFixed(3)} ms  p99 ${gw.p99Ms.toFixed(3)} ms`);
  console.log(`  added by gw:         p50 ${(gw.p50Ms - direct.p50Ms).toFixed(3)} ms  p99 ${(gw.p99Ms - direct.p99Ms).toFixed(3)} ms`);
  if (gwCpuMicros !== undefined) console.log(`  gw CPU per call:     ${gwCpuMicros.toFixed(0)} us`);
}
