/**
 * The examples in examples/ run as written against a gw instance, with no provider key (they
 * fall back to mock_response): the openai client, each provider mode, a saved provider, a
 * fallback config.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
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
    app = await startTestApp();
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
});
