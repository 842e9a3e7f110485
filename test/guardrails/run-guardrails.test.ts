/** The guardrail runner on its own: enabled checks, phases, chained rewrites, failOnError, the guarded fetch it hands to checks. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { GuardrailDefinition } from '../../gateway/guardrails/definition.js';
import { guardedCheckTools } from '../../gateway/guardrails/guarded-fetch.js';
import { runGuardrails } from '../../gateway/guardrails/run-guardrails.js';
import { completionText, requestText, withCompletionText, withRequestText } from '../../gateway/guardrails/subject-text.js';
import type { ChatRequest } from '../../gateway/providers/types.js';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-server.js';
import { checkContext, inputSubject, outputSubject } from './check-fixtures.js';

const guardrail = (checks: GuardrailDefinition['checks'], extra: Partial<GuardrailDefinition> = {}): GuardrailDefinition => ({
  id: null,
  slug: null,
  name: 'test',
  checks,
  actions: { deny: true },
  failOnError: false,
  timeoutMs: 1000,
  ...extra,
});

describe('runGuardrails', () => {
  test('a disabled check is not run; a check made for the other phase passes as skipped', async () => {
    const outcome = await runGuardrails(
      [
        guardrail([
          { id: 'default.contains', parameters: { words: ['answer'], operator: 'none' }, is_enabled: false },
          { id: 'default.modelWhitelist', parameters: { models: ['other-model'] } },
        ]),
      ],
      outputSubject('the answer'),
      checkContext(),
    );
    const [result] = outcome.results;
    assert.deepEqual(result!.checks.map((check) => check.id), ['default.modelWhitelist']);
    assert.equal(result!.checks[0]!.verdict, true);
    assert.match(result!.checks[0]!.explanation!, /skipped on output/);
    assert.equal(outcome.denied, undefined);
  });

  test('guardrails run in order: the second sees the text the first rewrote', async () => {
    const outcome = await runGuardrails(
      [
        guardrail([{ id: 'default.pii', parameters: { categories: ['email'], redact: true } }]),
        guardrail([{ id: 'default.regexMatch', parameters: { rule: '@', not: true } }], { slug: 'no-at-sign' }),
      ],
      inputSubject('reach me at jane.doe@example.com'),
      checkContext(),
    );
    assert.equal(outcome.results[0]!.transformed, true);
    assert.equal(outcome.results[1]!.verdict, true, 'the address was gone before the second guardrail ran');
    assert.ok(outcome.text !== undefined && !outcome.text.includes('@'));
  });

  test('the first failed guardrail with deny is the denial; a failed monitor-only one is not', async () => {
    const outcome = await runGuardrails(
      [
        guardrail([{ id: 'default.contains', parameters: { words: ['x'], operator: 'all' } }], { slug: 'monitor', actions: { deny: false } }),
        guardrail([{ id: 'default.contains', parameters: { words: ['y'], operator: 'all' } }], { slug: 'deny' }),
      ],
      inputSubject('nothing here'),
      checkContext(),
    );
    assert.deepEqual(outcome.results.map((result) => [result.slug, result.verdict, result.deny]), [['monitor', false, false], ['deny', false, true]]);
    assert.equal(outcome.denied?.slug, 'deny');
  });

  test('a check that cannot run: failOnError false passes with the error, true fails', async () => {
    const refused = checkContext({
      vetUrl: async () => {
        throw new Error('refused on purpose');
      },
    });
    const checks = [{ id: 'default.webhook', parameters: { webhookURL: 'http://private.test/hook' } }];
    const open = await runGuardrails([guardrail(checks)], inputSubject('hi'), refused);
    assert.deepEqual(open.results[0]!.checks[0], { id: 'default.webhook', verdict: true, error: 'refused on purpose' });
    assert.equal(open.denied, undefined);
    const closed = await runGuardrails([guardrail(checks, { failOnError: true })], inputSubject('hi'), refused);
    assert.equal(closed.results[0]!.checks[0]!.verdict, false);
    assert.ok(closed.denied);
  });
});

describe('the guarded fetch checks get', () => {
  let endpoint: RecordingServer;
  // Made-up names only: the stub never queries DNS.
  const resolve = async (hostname: string) => ({ 'private.test': ['10.1.2.3'], 'loopback.test': ['127.0.0.1'] })[hostname] ?? [];
  const tools = () => guardedCheckTools({ trustedHosts: ['127.0.0.1'], maxAnswerBytes: 32 * 1024 * 1024, resolve });

  before(async () => {
    endpoint = await startRecordingServer((_request, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"verdict":true}');
    });
  });
  after(() => endpoint.close());

  test('names that resolve to private or loopback addresses are refused before any connection', async () => {
    for (const url of ['http://private.test/hook', 'http://loopback.test/hook', 'http://127.0.0.2/hook', 'http://[::1]/hook']) {
      await assert.rejects(tools().fetch(url, { method: 'POST' }), (error: { code?: string; status?: number }) => error.code === 'guardrail_url_refused' && error.status === 400, url);
      await assert.rejects(tools().vetUrl(url, 'parameters.webhookURL'), /parameters\.webhookURL points to/);
    }
    assert.equal(endpoint.received.length, 0);
  });

  test('a trusted host is reached', async () => {
    const response = await tools().fetch(`${endpoint.url}/hook`, { method: 'POST', body: '{}' });
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { verdict: true });
    assert.equal(endpoint.received.at(-1)!.path, '/hook');
  });
});

describe('the text guardrails read and rewrite', () => {
  const request = {
    model: 'm',
    messages: [
      { role: 'user', content: 'first question' },
      { role: 'assistant', content: 'an answer' },
      { role: 'user', content: [{ type: 'text', text: 'line one' }, { type: 'image_url', image_url: { url: 'https://example.test/a.png' } }, { type: 'text', text: 'line two' }] },
    ],
  } as unknown as ChatRequest;

  test('input: the last user turn, text parts joined; a rewrite replaces the text parts and keeps the others', () => {
    assert.equal(requestText(request), 'line one\nline two');
    const rewritten = withRequestText(request, 'redacted');
    assert.deepEqual(rewritten.messages[2]!.content, [{ type: 'text', text: 'redacted' }, { type: 'image_url', image_url: { url: 'https://example.test/a.png' } }]);
    assert.equal(rewritten.messages[0]!.content, 'first question', 'earlier turns are left alone');
    assert.equal(requestText(request), 'line one\nline two', 'the original request is not changed');
  });

  test("output: the first choice's text", () => {
    const completion = outputSubject('the answer').completion!;
    assert.equal(completionText(completion), 'the answer');
    assert.equal(withCompletionText(completion, 'changed').choices[0]!.message.content, 'changed');
    assert.equal(completion.choices[0]!.message.content, 'the answer');
  });
});
