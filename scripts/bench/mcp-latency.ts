/**
 * The MCP row of `make bench`: `tools/call` made with the MCP SDK's client straight to an MCP
 * server, and the same call through gw's MCP gateway (key check, session lookup, capability check,
 * limits, guardrail lookup, the upstream call, the log entry). Calls are sequential on one session
 * each, so the difference is the latency gw adds per call.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export interface BenchOptions {
  warmup: number;
  calls: number;
  /** gw's CPU time so far (microseconds), read around the calls through gw. */
  gwCpuMicros?: () => Promise<number>;
}

/** gw's CPU time per call through it (its session's opening and the warm-up included). */
export function cpuPerCall(before: number | undefined, after: number | undefined, options: BenchOptions): number | undefined {
  return before === undefined || after === undefined ? undefined : (after - before) / (options.warmup + options.calls);
}

export interface LatencyResult {
  calls: number;
  p50Ms: number;
  p99Ms: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function timeCalls(url: string, headers: Record<string, string>, warmup: number, calls: number): Promise<LatencyResult> {
  const client = new Client({ name: 'gw-bench', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  for (let i = 0; i < warmup; i++) await client.callTool({ name: 'echo', arguments: { text: 'warm' } });
  const times: number[] = [];
  for (let i = 0; i < calls; i++) {
    const started = performance.now();
    const result = await client.callTool({ name: 'echo', arguments: { text: `call ${i}` } });
    times.push(performance.now() - started);
    if (result.isError) throw new Error(`tools/call failed: ${JSON.stringify(result)}`);
  }
  await client.close();
  times.sort((a, b) => a - b);
  return { calls, p50Ms: percentile(times, 50), p99Ms: percentile(times, 99) };
}

/** Registers the MCP server in gw (integration, server); the path through gw is `<gwUrl>/bench-mcp/mcp`. */
export async function registerMcp(gwUrl: string, adminKey: string, mcpUrl: string): Promise<string> {
  const admin = { 'x-gw-api-key': adminKey, 'content-type': 'application/json' };
  const integration = await fetch(`${gwUrl}/v1/mcp-integrations`, { method: 'POST', headers: admin, body: JSON.stringify({ name: 'bench mcp', url: mcpUrl, transport: 'http', auth_type: 'none', global_workspace_access: true }) });
  const created = (await integration.json()) as { id?: string; sync_status?: string };
  if (integration.status !== 201 || created.sync_status !== 'synced') throw new Error(`bench: MCP integration not created: ${JSON.stringify(created)}`);
  const server = await fetch(`${gwUrl}/v1/mcp-servers`, { method: 'POST', headers: admin, body: JSON.stringify({ name: 'bench', slug: 'bench-mcp', mcp_integration_id: created.id }) });
  if (server.status !== 201) throw new Error(`bench: MCP server not created: ${await server.text()}`);
  return `${gwUrl}/bench-mcp/mcp`;
}

/** Times the direct path, then the path through gw. */
export async function measureMcp(gwUrl: string, adminKey: string, mcpUrl: string, options: BenchOptions): Promise<{ direct: LatencyResult; gw: LatencyResult; gwCpuMicros?: number }> {
  const throughGw = await registerMcp(gwUrl, adminKey, mcpUrl);
  const direct = await timeCalls(mcpUrl, {}, options.warmup, options.calls);
  const cpuBefore = await options.gwCpuMicros?.();
  const gw = await timeCalls(throughGw, { 'x-gw-api-key': adminKey }, options.warmup, options.calls);
  const cpuAfter = await options.gwCpuMicros?.();
  return { direct, gw, gwCpuMicros: cpuPerCall(cpuBefore, cpuAfter, options) };
}

export function reportMcp({ direct, gw, gwCpuMicros }: { direct: LatencyResult; gw: LatencyResult; gwCpuMicros?: number }): void {
  console.log(`\nMCP tools/call, sequential, ${gw.calls} calls each`);
  console.log(`  direct to the MCP server: p50 ${direct.p50Ms.toFixed(3)} ms  p99 ${direct.p99Ms.toFixed(3)} ms`);
  console.log(`  through gw:               p50 ${gw.p50Ms.toFixed(3)} ms  p99 ${gw.p99Ms.toFixed(3)} ms`);
  console.log(`  added by gw:              p50 ${(gw.p50Ms - direct.p50Ms).toFixed(3)} ms  p99 ${(gw.p99Ms - direct.p99Ms).toFixed(3)} ms`);
  if (gwCpuMicros !== undefined) console.log(`  gw CPU per call:          ${gwCpuMicros.toFixed(0)} us`);
}
