/**
 * The examples in examples/ run as written against a gw instance, with no provider key (they
 * fall back to mock_response): the openai client, each provider mode, a saved provider, a
 * fallback config.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');

describe('examples/', () => {
  let app: TestApp;
  let env: NodeJS.ProcessEnv;
  before(async () => {
    // Log rows would wait a minute to be written: the README's log read must not depend on timing.
    app = await startTestApp({ env: { GW_LOG_FLUSH_INTERVAL_MS: '60000' } });
    const { OPENAI_API_KEY: _o, ANTHROPIC_API_KEY: _a, ...rest } = process.env;
    env = { ...rest, GW_URL: app.url, GW_API_KEY: app.adminKey };
  });
  after(() => app.close());

  const example = async (file: string, extra: Record<string, string> = {}) => {
    const command = file.endsWith('.mjs') ? process.execPath : 'bash';
    const { stdout } = await run(command, [path.join(root, 'examples', file)], { env: { ...env, ...extra }, cwd: root });
    return stdout;
  };

  it('openai-client.mjs: the official client, plain and streamed', async () => {
    const out = await example('openai-client.mjs');
    assert.match(out, /demo: Hello from gw/);
    assert.match(out, /demo stream: streamed from gw/);
  });

  it('provider-modes.sh: provider name plus key, and an inline config', async () => {
    const out = await example('provider-modes.sh');
    assert.equal(out.match(/"content":"Hello from gw"/g)?.length, 2);
  });

  it('save-provider.sh, then the client with only baseURL and the gw key', async () => {
    const out = await example('save-provider.sh');
    assert.match(out, /"slug":"my-openai"/);
    assert.match(out, /Hello through a saved provider/);
    const client = await example('openai-client.mjs', { GW_PROVIDER_SLUG: 'my-openai' });
    assert.match(client, /saved provider: Hello through a saved provider/);
  });

  it('fallback-config.sh: a saved fallback config, called by slug', async () => {
    const out = await example('fallback-config.sh');
    assert.match(out, /"slug":"openai-then-anthropic"/);
    assert.match(out, /x-gw-provider: openai/i);
    assert.match(out, /Hello through a fallback config/);
  });

  it("the README's quickstart: the readiness wait, the call without a provider key and its log, as written", async () => {
    const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
    const quickstart = readme.slice(readme.indexOf('## Quickstart'), readme.indexOf('\n## ', readme.indexOf('## Quickstart') + 1));
    const blocks = [...quickstart.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
    const wait = blocks.flatMap((block) => block.split('\n')).find((line) => line.startsWith('until '));
    const mock = blocks.find((block) => block.includes('mock_response'));
    assert.ok(wait && mock, 'the quickstart has its readiness wait and its mock call');
    // The same commands, pointed at this test's gw instead of localhost:8787.
    const here = new URL(app.url).host;
    const script = `${wait}\n${mock}`.replaceAll('localhost:8787', here);
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', script], { env: { ...env, GW_ADMIN_API_KEY: app.adminKey }, cwd: root });
    assert.match(stdout, /gw is ready/);
    assert.match(stdout, /"content":"Hello from gw"/);
    // curl prints the two bodies back to back: the chat answer, then the log.
    const log = JSON.parse(stdout.slice(stdout.indexOf('}{') + 1)) as { trace_id: string; model: string; status: number; response_body: unknown };
    assert.equal(log.trace_id, 'my-first-request', 'the log read by trace id is the request');
    assert.equal(log.model, 'gpt-4o-mini');
    assert.equal(log.status, 200);
    assert.match(JSON.stringify(log.response_body), /Hello from gw/);
  });
});
