/**
 * The real Claude Code CLI (@anthropic-ai/claude-code from npm, installed outside the repo by
 * scripts/ci/claude-code.sh) in print mode against gw's Messages door, with a fake Anthropic
 * upstream behind a saved provider chosen through ANTHROPIC_CUSTOM_HEADERS: a one-shot answer, and
 * a tool round trip (the fake asks for Claude Code's Read tool, Claude Code reads the file and sends
 * the result back through gw), and Claude Code as an MCP client of gw's MCP gateway (the fake asks
 * for a tool of an MCP server gw fronts; Claude Code calls it through gw). Claude Code runs with a temporary HOME, its non-essential traffic
 * off, and a dead loopback proxy for anything not addressed to loopback, so nothing leaves the machine.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startFakeAnthropic, type FakeAnthropicReply } from '../helpers/fake-anthropic.js';
import { startFakeMcpServer, type FakeMcpServer } from '../helpers/fake-mcp-server.js';
import { addMcpServer } from '../mcp/mcp-fixtures.js';
import { logsSettled, startGatewayApp, type GatewayApp } from '../helpers/gateway-app.js';
import { cliScratch, installedTool, runCli, type CliRun, type CliScratch } from '../helpers/real-cli.js';
import type { RecordedRequest, RecordingServer } from '../helpers/recording-server.js';
const NOTE = 'The launch code is 4242.';

type Block = { type: string; text?: string; content?: unknown; tool_use_id?: string };

function blocksOf(request: RecordedRequest): Block[] {
  const messages = (request.body?.messages ?? []) as Array<{ role: string; content: string | Block[] }>;
  return messages.flatMap((message) => (typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content));
}

function toolResultText(block: Block): string {
  return typeof block.content === 'string' ? block.content : ((block.content ?? []) as Block[]).map((inner) => inner.text ?? '').join('');
}

/** The fake model: reads the note when asked to, answers with what the tool returned, else greets. */
function script(notePath: string) {
  return (request: RecordedRequest): FakeAnthropicReply => {
    const blocks = blocksOf(request);
    const result = blocks.find((block) => block.type === 'tool_result');
    const usage = { input_tokens: 1200, output_tokens: 30, cache_creation_input_tokens: 800, cache_read_input_tokens: 4000 };
    if (result?.tool_use_id === 'toolu_cc_mcp') return { kind: 'message', message: { content: [{ type: 'text', text: `The sum is: ${toolResultText(result)}` }], stop_reason: 'end_turn', usage } };
    if (result) return { kind: 'message', message: { content: [{ type: 'text', text: `The note says: ${toolResultText(result).includes('4242') ? '4242' : 'nothing'}` }], stop_reason: 'end_turn', usage } };
    const tools = ((request.body?.tools ?? []) as Array<{ name?: string }>).map((tool) => tool.name);
    if (blocks.some((block) => block.type === 'text' && block.text?.includes('USE_MCP_ADD')) && tools.includes('mcp__gw__add')) {
      return { kind: 'message', message: { content: [{ type: 'tool_use', id: 'toolu_cc_mcp', name: 'mcp__gw__add', input: { a: 2, b: 40 } }], stop_reason: 'tool_use', usage } };
    }
    const asked = blocks.some((block) => block.type === 'text' && block.text?.includes('READ_THE_NOTE'));
    const offersRead = tools.includes('Read');
    if (asked && offersRead) return { kind: 'message', message: { content: [{ type: 'tool_use', id: 'toolu_cc_1', name: 'Read', input: { file_path: notePath } }], stop_reason: 'tool_use', usage } };
    return { kind: 'message', message: { content: [{ type: 'text', text: 'Hello through gw' }], stop_reason: 'end_turn', usage } };
  };
}

describe('Claude Code through the Messages door', () => {
  let gw: GatewayApp;
  let fake: RecordingServer;
  let mcp: FakeMcpServer;
  let cli: string;
  let scratch: CliScratch;

  before(async () => {
    cli = installedTool('claude-code.sh');
    scratch = cliScratch('gw-cc', NOTE);
    fake = await startFakeAnthropic(script(scratch.notePath));
    gw = await startGatewayApp();
    const saved = await gw.app.http
      .post('/v1/providers')
      .set({ 'x-gw-api-key': gw.app.adminKey })
      .send({ name: 'Claude', slug: 'claude', ai_provider_id: 'anthropic', key: 'sk-ant-cc', configurations: { custom_host: fake.url } });
    assert.equal(saved.status, 201, JSON.stringify(saved.body));
    mcp = await startFakeMcpServer();
    await addMcpServer(gw.app, { url: mcp.url, slug: 'tools' });
  });
  after(async () => {
    await gw?.close();
    await fake?.close();
    await mcp?.close();
    scratch?.remove();
  });

  function claude(prompt: string, extra: string[] = [], env: Record<string, string> = {}): Promise<CliRun> {
    // Older releases are cli.js, run with a Node >= 22; recent ones a native binary.
    const runner = cli.endsWith('.js') ? [`${installedTool('node-binary.sh', ['24'])}/bin/node`, cli] : [cli];
    return runCli([...runner, '-p', prompt, '--model', 'claude-sonnet-4-5', ...extra], scratch.work, scratch.home, {
      ANTHROPIC_BASE_URL: gw.app.url,
      ANTHROPIC_AUTH_TOKEN: gw.app.adminKey,
      ANTHROPIC_CUSTOM_HEADERS: 'x-gw-provider: @claude',
      DISABLE_NONESSENTIAL_TRAFFIC: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_ERROR_REPORTING: '1',
      ...env,
    });
  }

  it('answers a one-shot prompt, streamed through gw, logged with tokens and cost', async () => {
    const before = gw.logs.length;
    const run = await claude('Say hello');
    assert.equal(run.code, 0, `stdout: ${run.stdout}\nstderr: ${run.stderr}`);
    assert.match(run.stdout, /Hello through gw/);
    const call = fake.received.filter((request) => request.path.startsWith('/v1/messages')).at(-1)!;
    assert.equal(call.body?.stream, true);
    assert.equal(call.headers['x-api-key'], 'sk-ant-cc');
    assert.equal(call.headers.authorization, undefined);
    assert.match(String(call.headers['anthropic-beta']), /claude-code-/);
    const logged = (await logsSettled(gw, before + 1)).slice(before).filter((entry) => entry.endpoint === 'messages');
    const entry = logged.at(-1)!;
    assert.equal(entry.status, 200);
    assert.equal(entry.provider, 'anthropic');
    assert.deepEqual([entry.prompt_tokens, entry.completion_tokens], [6000, 30]);
    // Cache writes and reads at the catalog's own rates (claude-sonnet-4-5: input 3, write 3.75, read 0.3, output 15 USD per million).
    assert.equal(entry.cost, ((1200 * 3 + 800 * 3.75 + 4000 * 0.3 + 30 * 15) * 1000) / 1e9);
  });

  it('runs a tool round trip: the model asks for Read, Claude Code reads the file and sends the result back through gw', async () => {
    const run = await claude('READ_THE_NOTE in note.txt and tell me the code', ['--allowedTools', 'Read']);
    assert.equal(run.code, 0, `stdout: ${run.stdout}\nstderr: ${run.stderr}`);
    assert.match(run.stdout, /The note says: 4242/);
    const withResult = fake.received.find((request) => blocksOf(request).some((block) => block.type === 'tool_result' && block.tool_use_id === 'toolu_cc_1'));
    assert.ok(withResult, 'the tool result came back through gw');
  });

  it("calls a tool of gw's MCP gateway as an MCP client, and answers with its result", async () => {
    const config = JSON.stringify({ mcpServers: { gw: { type: 'http', url: `${gw.app.url}/tools/mcp`, headers: { 'x-gw-api-key': gw.app.adminKey } } } });
    // MCP tools offered whole (not behind Claude Code's tool search), so the model can call one at once.
    const run = await claude('USE_MCP_ADD to add 2 and 40', ['--mcp-config', config, '--allowedTools', 'mcp__gw__add'], { ENABLE_TOOL_SEARCH: 'false' });
    assert.equal(run.code, 0, `stdout: ${run.stdout}\nstderr: ${run.stderr}`);
    const last = fake.received.filter((request) => request.path.startsWith('/v1/messages')).at(-1)!;
    assert.match(run.stdout, /The sum is: 42/, `tools offered: ${(last.body?.tools as Array<{ name: string }>).map((tool) => tool.name).join(', ')}`);
    assert.deepEqual(mcp.toolCalls.at(-1), { name: 'add', args: { a: 2, b: 40 } });
  });
});
