/**
 * The real OpenAI Codex CLI (@openai/codex from npm, installed outside the repo by
 * scripts/ci/codex.sh) in non-interactive mode (`codex exec`) against gw's Responses door, with a
 * custom model provider whose base URL is gw's /v1 (wire API `responses`, the gw key from an env
 * var), over two saved providers: an OpenAI-type one on a fake chat upstream and an Anthropic-type
 * one on a fake Messages upstream. For each: a one-turn answer, and a shell round trip (the fake
 * model asks for Codex's `exec_command`, Codex runs it and resends the whole conversation with the
 * output), streamed, logged with tokens and cost. Codex sends every tool type it has (functions, a
 * namespace, web_search): the OpenAI-type provider gets the call as it is on its own Responses API
 * (it hosts web_search); the Anthropic-type one gets the chat translation without web_search, and
 * gw says so in the log. Codex runs with a temporary HOME and
 * CODEX_HOME, analytics, feedback and update checks off, and a dead loopback proxy for anything not
 * addressed to loopback, so nothing leaves the machine.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startFakeAnthropic, type FakeAnthropicReply } from '../helpers/fake-anthropic.js';
import type { FakeBehaviour, FakeRequest } from '../helpers/fake-openai.js';
import { logsSettled, startGatewayApp, type GatewayApp } from '../helpers/gateway-app.js';
import { cliScratch, installedTool, runCli, type CliRun, type CliScratch } from '../helpers/real-cli.js';
import type { RecordedRequest, RecordingServer } from '../helpers/recording-server.js';

const NOTE = 'The launch code is 4242.';
const COMMAND = 'cat note.txt';

type Json = Record<string, unknown>;

/** What the fake model decides from the conversation it is shown, whatever the provider's wire. */
function decide(lastUserText: string, toolResult: string | undefined): { text: string } | { shell: string } {
  if (toolResult !== undefined) return { text: `The note says: ${toolResult.includes('4242') ? '4242' : 'nothing'}` };
  if (lastUserText.includes('RUN_THE_NOTE')) return { shell: COMMAND };
  return { text: 'Hello through gw' };
}

function openAiScript(request: FakeRequest): FakeBehaviour {
  const messages = (request.body.messages ?? []) as Array<{ role: string; content: unknown }>;
  const last = messages.at(-1);
  const textOf = (content: unknown) => (typeof content === 'string' ? content : ((content ?? []) as Array<{ text?: string }>).map((part) => part.text ?? '').join(''));
  const user = [...messages].reverse().find((message) => message.role === 'user');
  const decision = decide(textOf(user?.content), last?.role === 'tool' ? textOf(last.content) : undefined);
  if ('shell' in decision) return { kind: 'reply', toolCall: { name: 'exec_command', arguments: JSON.stringify({ cmd: decision.shell }) } };
  return { kind: 'reply', content: decision.text, toolCall: null };
}

function anthropicScript(request: RecordedRequest): FakeAnthropicReply {
  const messages = (request.body?.messages ?? []) as Array<{ role: string; content: string | Array<{ type: string; text?: string; content?: unknown }> }>;
  const blocks = (content: (typeof messages)[number]['content']) => (typeof content === 'string' ? [{ type: 'text', text: content }] : content);
  const result = blocks(messages.at(-1)?.content ?? []).find((block) => block.type === 'tool_result');
  const resultText = result ? (typeof result.content === 'string' ? result.content : ((result.content ?? []) as Array<{ text?: string }>).map((part) => part.text ?? '').join('')) : undefined;
  const userText = messages
    .filter((message) => message.role === 'user')
    .flatMap((message) => blocks(message.content))
    .map((block) => block.text ?? '')
    .join('\n');
  const decision = decide(userText, resultText);
  const usage = { input_tokens: 1500, output_tokens: 40 };
  if ('shell' in decision) return { kind: 'message', message: { content: [{ type: 'tool_use', id: 'toolu_codex_1', name: 'exec_command', input: { cmd: decision.shell } }], stop_reason: 'tool_use', usage } };
  return { kind: 'message', message: { content: [{ type: 'text', text: decision.text }], stop_reason: 'end_turn', usage } };
}

/** Codex's config: gw as a custom Responses provider, and nothing that would call home. */
function codexConfig(baseUrl: string): string {
  return [
    'model_provider = "gw"',
    'check_for_update_on_startup = false',
    'approval_policy = "never"',
    '[analytics]',
    'enabled = false',
    '[feedback]',
    'enabled = false',
    '[model_providers.gw]',
    'name = "gw"',
    `base_url = "${baseUrl}"`,
    'wire_api = "responses"',
    'env_key = "GW_API_KEY"',
    'request_max_retries = 0',
    'stream_max_retries = 0',
    '',
  ].join('\n');
}

describe('The Codex CLI through the Responses door', () => {
  let gw: GatewayApp;
  let anthropic: RecordingServer;
  let cli: string;
  let scratch: CliScratch;

  before(async () => {
    cli = installedTool('codex.sh');
    scratch = cliScratch('gw-codex', NOTE);
    anthropic = await startFakeAnthropic(anthropicScript);
    gw = await startGatewayApp();
    gw.fake.script(openAiScript);
    for (const provider of [
      { name: 'OpenAI', slug: 'oai', ai_provider_id: 'openai', key: 'sk-codex-openai', configurations: { custom_host: gw.fake.url } },
      { name: 'Claude', slug: 'claude', ai_provider_id: 'anthropic', key: 'sk-ant-codex', configurations: { custom_host: anthropic.url } },
    ]) {
      const saved = await gw.app.http.post('/v1/providers').set({ 'x-gw-api-key': gw.app.adminKey }).send(provider);
      assert.equal(saved.status, 201, JSON.stringify(saved.body));
    }
    const codexHome = path.join(scratch.home, '.codex');
    mkdirSync(codexHome, { recursive: true });
    writeFileSync(path.join(codexHome, 'config.toml'), codexConfig(`${gw.app.url}/v1`));
  });
  after(async () => {
    await gw?.close();
    await anthropic?.close();
    scratch?.remove();
  });

  function codex(model: string, prompt: string): Promise<CliRun> {
    const args = ['exec', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', '--color', 'never', '-m', model, prompt];
    return runCli([cli, ...args], scratch.work, scratch.home, { CODEX_HOME: path.join(scratch.home, '.codex'), GW_API_KEY: gw.app.adminKey });
  }

  const upstreams = [
    { name: 'an OpenAI-type saved provider', model: '@oai/gpt-4o', provider: 'openai', calls: () => gw.fake.requests.filter((request) => request.path.endsWith('/responses')).map((request) => request.body as Json) },
    { name: 'an Anthropic-type saved provider', model: '@claude/claude-sonnet-4-5', provider: 'anthropic', calls: () => anthropic.received.filter((request) => request.path.startsWith('/v1/messages')).map((request) => request.body as Json) },
  ];

  for (const upstream of upstreams) {
    it(`answers one turn over ${upstream.name}, streamed, logged with tokens and cost`, async () => {
      const before = gw.logs.length;
      const run = await codex(upstream.model, 'Say hello');
      assert.equal(run.code, 0, `stdout: ${run.stdout}\nstderr: ${run.stderr}`);
      assert.match(run.stdout, /Hello through gw/);
      const sent = upstream.calls().at(-1)!;
      assert.equal(sent.stream, true);
      const entry = (await logsSettled(gw, before + 1)).slice(before).filter((row) => row.endpoint === 'responses').at(-1)!;
      assert.equal(entry.status, 200);
      assert.equal(entry.stream, true);
      assert.equal(entry.provider, upstream.provider);
      assert.ok(entry.prompt_tokens > 0 && entry.completion_tokens > 0, `tokens ${entry.prompt_tokens}/${entry.completion_tokens}`);
      assert.ok(entry.cost > 0, `cost ${entry.cost}`);
      // Codex offers web_search on every call: OpenAI runs it; elsewhere it is left out, said in the log.
      if (upstream.provider === 'openai') {
        assert.equal(entry.metadata._omitted_tools, undefined);
        assert.ok((sent.tools as Array<{ type: string }>).some((tool) => tool.type === 'web_search'));
        assert.equal(sent.store, false);
      } else assert.match(entry.metadata._omitted_tools ?? '', /web_search/);
      const request = entry.request_body as { tools?: Array<{ function: { name: string } }> };
      assert.ok(request.tools?.some((tool) => tool.function.name === 'exec_command'), 'Codex shell tool sent upstream');
    });

    it(`runs a shell round trip over ${upstream.name}: exec_command called, run by Codex, its output sent back through gw`, async () => {
      const before = gw.logs.length;
      const run = await codex(upstream.model, 'RUN_THE_NOTE: show me note.txt');
      assert.equal(run.code, 0, `stdout: ${run.stdout}\nstderr: ${run.stderr}`);
      assert.match(run.stdout, /The note says: 4242/);
      const logged = (await logsSettled(gw, before + 2)).slice(before).filter((row) => row.endpoint === 'responses');
      assert.ok(logged.length >= 2, 'the call and the turn with the output');
      for (const entry of logged) assert.ok(entry.cost > 0 && entry.total_tokens > 0);
      // Codex resends the whole conversation (no previous_response_id): its prompt, the call and the output.
      const last = JSON.stringify(upstream.calls().at(-1));
      for (const part of ['RUN_THE_NOTE', 'exec_command', NOTE]) assert.ok(last.includes(part), `the last upstream call has ${part}`);
    });
  }
});
