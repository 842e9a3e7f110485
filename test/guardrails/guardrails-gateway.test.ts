/**
 * Guardrails through the gateway: the fake OpenAI upstream answers "You said: <last user text>",
 * configs are sent inline (x-gw-config) or saved, webhooks listen on 127.0.0.1 (trusted, as fake
 * upstreams are) or sit on untrusted loopback forms that gw must refuse without connecting.
 */
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { after, before, beforeEach, describe, test } from 'node:test';
import { fullEngines } from '../helpers/engines.js';
import { refusedUrl } from '../helpers/fault-upstream.js';
import { logsSettled, startGatewayApp, type GatewayApp } from '../helpers/gateway-app.js';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-server.js';

type Json = Record<string, unknown>;

const contains = (words: string[], deny: boolean, extra: Json = {}) => ({
  checks: [{ id: 'default.contains', parameters: { words, operator: 'none' } }],
  actions: { deny, ...extra },
});

const webhook = (url: string, failOnError: boolean, timeout?: number) => ({
  checks: [{ id: 'default.webhook', parameters: { webhookURL: url, ...(timeout ? { timeout } : {}) } }],
  actions: { deny: true },
  failOnError,
});

const leaf = (extra: Json = {}) => ({ provider: 'openai', api_key: 'sk-upstream', ...extra });

for (const engine of fullEngines()) {
  describe(`guardrails through the gateway (${engine.name})`, () => {
    let gw: GatewayApp;
    let hooks: RecordingServer;
    let hookAnswer: (request: Json, res: ServerResponse) => void;
    const held: ServerResponse[] = [];

    before(async () => {
      gw = await startGatewayApp({ engine });
      hooks = await startRecordingServer((request, res) => hookAnswer((request.body ?? {}) as Json, res));
    });
    after(async () => {
      for (const res of held) res.destroy();
      await hooks.close();
      await gw.close();
    });
    beforeEach(() => {
      hookAnswer = (_body, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ verdict: true }));
      };
    });

    const chat = (config: Json, content: string, extra: Json = {}) =>
      gw.app.http
        .post('/v1/chat/completions')
        .set({ 'x-gw-api-key': gw.app.adminKey, 'x-gw-config': JSON.stringify(config) })
        .send({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }], ...extra });

    const upstreamCalls = () => gw.fake.requests.filter((request) => request.path.endsWith('/chat/completions')).length;

    test('deny: a failed input guardrail answers 446 with hook_results and never calls the upstream; the log keeps the results', async () => {
      const before = upstreamCalls();
      const logged = gw.logs.length;
      const response = await chat(leaf({ input_guardrails: [contains(['forbidden'], true)] }), 'say forbidden things');
      assert.equal(response.status, 446, JSON.stringify(response.body));
      assert.equal(response.body.error.type, 'guardrail_error');
      assert.equal(response.body.error.code, 'guardrail_denied');
      const [result] = response.body.hook_results.before_request_hooks;
      assert.equal(result.verdict, false);
      assert.equal(result.deny, true);
      assert.equal(result.checks[0].id, 'default.contains');
      assert.deepEqual(result.checks[0].data.found, ['forbidden']);
      assert.equal(upstreamCalls(), before, 'a denied request goes nowhere');
      const [entry] = (await logsSettled(gw, logged + 1)).slice(logged);
      assert.equal(entry!.status, 446);
      assert.equal((entry!.guardrail_results as Json[])[0]!.verdict, false);
    });

    test('monitor: a failed guardrail without deny lets the answer pass with 246 and hook_results; a pass answers 200 with them', async () => {
      const monitored = await chat(leaf({ input_guardrails: [contains(['forbidden'], false)] }), 'say forbidden things');
      assert.equal(monitored.status, 246, JSON.stringify(monitored.body));
      assert.equal(monitored.body.choices[0].message.content, 'You said: say forbidden things');
      assert.equal(monitored.body.hook_results.before_request_hooks[0].verdict, false);
      const passed = await chat(leaf({ input_guardrails: [contains(['forbidden'], true)] }), 'say nice things');
      assert.equal(passed.status, 200);
      assert.equal(passed.body.hook_results.before_request_hooks[0].verdict, true);
      const logged = await logsSettled(gw, gw.logs.length);
      assert.equal(logged.at(-2)!.status, 246);
    });

    test('output guardrails judge the answer: deny 446 after the upstream answered; a rewrite (redaction) changes what the client gets', async () => {
      const denied = await chat(leaf({ output_guardrails: [contains(['said'], true)] }), 'hello');
      assert.equal(denied.status, 446);
      assert.equal(denied.body.hook_results.after_request_hooks[0].phase, 'output');
      const redacting = { checks: [{ id: 'default.pii', parameters: { categories: ['email'], redact: true } }], actions: { deny: true } };
      const redacted = await chat(leaf({ output_guardrails: [redacting] }), 'write to jane.doe@example.com');
      assert.equal(redacted.status, 200);
      assert.doesNotMatch(redacted.body.choices[0].message.content, /jane\.doe@example\.com/);
      assert.equal(redacted.body.hook_results.after_request_hooks[0].transformed, true);
    });

    test('an input rewrite reaches the upstream in place of the original text', async () => {
      const redacting = { checks: [{ id: 'default.pii', parameters: { categories: ['email'], redact: true } }] };
      const response = await chat(leaf({ input_guardrails: [redacting] }), 'mail jane.doe@example.com now');
      assert.equal(response.status, 200);
      const sent = gw.fake.requests.at(-1)!.body.messages as Array<{ content: string }>;
      assert.doesNotMatch(sent.at(-1)!.content, /jane\.doe@example\.com/);
      assert.match(sent.at(-1)!.content, /^mail .+ now$/);
    });

    test('streams: judged on the assembled answer and logged while streaming through; held streams are denied before the first byte', async () => {
      const logged = gw.logs.length;
      const through = await chat(leaf({ output_guardrails: [contains(['said'], true)] }), 'stream me', { stream: true });
      assert.equal(through.status, 200);
      assert.match(through.text, /data: \[DONE\]/);
      const [entry] = (await logsSettled(gw, logged + 1)).slice(logged);
      const results = entry!.guardrail_results as Array<{ phase: string; verdict: boolean; checks: Array<{ data: { found: string[] } }> }>;
      assert.equal(results[0]!.phase, 'output');
      assert.equal(results[0]!.verdict, false, 'the assembled text "You said: stream me" contains the word');
      assert.deepEqual(results[0]!.checks[0]!.data.found, ['said']);

      const heldDenied = await chat(leaf({ output_guardrails: [contains(['said'], true, { hold_stream: true })] }), 'stream me', { stream: true });
      assert.equal(heldDenied.status, 446);
      assert.match(String(heldDenied.headers['content-type']), /application\/json/);
      assert.equal(heldDenied.body.hook_results.after_request_hooks[0].verdict, false);

      const heldPassed = await chat(leaf({ output_guardrails: [contains(['nothing-like-this'], true, { hold_stream: true })] }), 'stream me', { stream: true });
      assert.equal(heldPassed.status, 200);
      assert.match(String(heldPassed.headers['content-type']), /text\/event-stream/);
      const text = heldPassed.text
        .split('\n')
        .filter((line) => line.startsWith('data: {'))
        .map((line) => (JSON.parse(line.slice(6)) as { choices: Array<{ delta: { content?: string } }> }).choices[0]?.delta.content ?? '')
        .join('');
      assert.equal(text, 'You said: stream me');
      assert.match(heldPassed.text, /data: \[DONE\]\n\n$/);

      const targetOwn = { strategy: { mode: 'single' }, targets: [leaf({ output_guardrails: [contains(['said'], true, { hold_stream: true })] })] };
      const targetHeld = await chat(targetOwn, 'stream me', { stream: true });
      assert.equal(targetHeld.status, 446, "a target's own output guardrail judges the held stream too");
    });

    test("fallback moves past a target whose own guardrail denies; the served target's index is reported", async () => {
      const response = await chat(
        { strategy: { mode: 'fallback' }, targets: [leaf({ output_guardrails: [contains(['said'], true)] }), leaf({ override_params: { temperature: 0.5 } })] },
        'hello',
      );
      assert.equal(response.status, 200, JSON.stringify(response.body));
      assert.equal(response.headers['x-gw-last-used-option-index'], '1');
      assert.equal(response.body.hook_results.after_request_hooks[0].verdict, false, "the first target's denial is reported");
      const inputDenied = await chat(
        { strategy: { mode: 'fallback' }, targets: [leaf({ input_guardrails: [contains(['hello'], true)] }), leaf()] },
        'hello',
      );
      assert.equal(inputDenied.status, 200);
      assert.equal(inputDenied.headers['x-gw-last-used-option-index'], '1');
      const allDenied = await chat({ strategy: { mode: 'fallback' }, targets: [leaf({ input_guardrails: [contains(['hello'], true)] })] }, 'hello');
      assert.equal(allDenied.status, 446);
    });

    test('saved guardrails by slug; an update applies on the next request', async () => {
      const saved = await gw.app.http.post('/v1/guardrails').set({ 'x-gw-api-key': gw.app.adminKey }).send({ name: 'Block cats', slug: 'block-cats', ...contains(['cats'], true) });
      assert.equal(saved.status, 201);
      assert.equal((await chat(leaf({ input_guardrails: ['block-cats'] }), 'I like cats')).status, 446);
      await gw.app.http.put('/v1/guardrails/block-cats').set({ 'x-gw-api-key': gw.app.adminKey }).send({ actions: { deny: false } });
      assert.equal((await chat(leaf({ input_guardrails: ['block-cats'] }), 'I like cats')).status, 246);
      const unknown = await chat(leaf({ input_guardrails: ['no-such-guardrail'] }), 'hi');
      assert.equal(unknown.status, 400);
      assert.equal(unknown.body.error.code, 'unknown_guardrail');
      const badInline = await chat(leaf({ input_guardrails: [{ checks: [{ id: 'default.contains', parameters: { words: 'cats' } }] }] }), 'hi');
      assert.equal(badInline.status, 400);
      assert.equal(badInline.body.error.param, 'config.input_guardrails[0].checks[0].parameters.words');
    });

    test('organisation defaults apply to every request, except in excluded workspaces', async () => {
      const admin = { 'x-gw-api-key': gw.app.adminKey };
      await gw.app.http.post('/v1/guardrails').set(admin).send({ name: 'No dogs', slug: 'no-dogs', ...contains(['dogs'], true) });
      await gw.app.http.post('/v1/guardrails').set(admin).send({ name: 'Quiet answers', slug: 'quiet', ...contains(['woof'], true) });
      await gw.app.http.put('/v1/admin/organisation/defaults').set(admin).send({ input_guardrails: ['no-dogs'], output_guardrails: ['quiet'] });
      const byProvider = () =>
        gw.app.http
          .post('/v1/chat/completions')
          .set({ ...admin, 'x-gw-provider': 'openai', authorization: 'Bearer sk-upstream' })
          .send({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'dogs go woof' }] });
      const denied = await byProvider();
      assert.equal(denied.status, 446, 'a request without any config still gets the defaults');
      assert.equal(denied.body.hook_results.before_request_hooks[0].slug, 'no-dogs');
      const workspace = gw.app.boot.workspaceId;
      await gw.app.http.put('/v1/workspace-exclusions/input-guardrails').set(admin).send({ workspaces: [workspace] });
      const outputDenied = await byProvider();
      assert.equal(outputDenied.status, 446, 'the output default still applies');
      assert.equal(outputDenied.body.hook_results.before_request_hooks.length, 0);
      assert.equal(outputDenied.body.hook_results.after_request_hooks[0].slug, 'quiet');
      await gw.app.http.put('/v1/workspace-exclusions/output-guardrails').set(admin).send({ workspaces: [workspace] });
      assert.equal((await byProvider()).status, 200, 'both phases excluded');
      await gw.app.http.put('/v1/workspace-exclusions/input-guardrails').set(admin).send({ workspaces: [], override_existing: true });
      assert.equal((await byProvider()).status, 446, 'the exclusion was replaced by an empty list');
      await gw.app.http.put('/v1/admin/organisation/defaults').set(admin).send({ input_guardrails: [], output_guardrails: [] });
      assert.equal((await byProvider()).status, 200);
    });

    test('failOnError with a webhook that is down: false passes with the error noted, true denies', async () => {
      const down = `${await refusedUrl()}/hook`;
      const open = await chat(leaf({ input_guardrails: [webhook(down, false)] }), 'hi');
      assert.equal(open.status, 200, JSON.stringify(open.body));
      const check = open.body.hook_results.before_request_hooks[0].checks[0];
      assert.equal(check.verdict, true);
      assert.match(check.error, /could not be reached/);
      const closed = await chat(leaf({ input_guardrails: [webhook(down, true)] }), 'hi');
      assert.equal(closed.status, 446);
      assert.equal(closed.body.hook_results.before_request_hooks[0].checks[0].verdict, false);
    });

    test('failOnError with a webhook that does not answer in time, by its own timeout and by the guardrail timeout', async () => {
      hookAnswer = (_body, res) => held.push(res);
      const slow = `${hooks.url}/slow`;
      const open = await chat(leaf({ input_guardrails: [webhook(slow, false, 50)] }), 'hi');
      assert.equal(open.status, 200);
      assert.match(open.body.hook_results.before_request_hooks[0].checks[0].error, /did not answer within 50 ms/);
      const closed = await chat(leaf({ input_guardrails: [webhook(slow, true, 50)] }), 'hi');
      assert.equal(closed.status, 446);
      const guardrailTimeout = await chat(leaf({ input_guardrails: [{ ...webhook(slow, true), timeout_ms: 50 }] }), 'hi');
      assert.equal(guardrailTimeout.status, 446);
      assert.match(guardrailTimeout.body.hook_results.before_request_hooks[0].checks[0].error, /did not finish within the guardrail's 50 ms/);
    });

    test('a webhook verdict denies, its transformed data rewrites the request, and it receives the hook event', async () => {
      hookAnswer = (body, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        const text = JSON.stringify(body);
        res.end(JSON.stringify(text.includes('rewrite me') ? { verdict: true, transformedData: { text: 'rewritten by the hook' } } : { verdict: false, data: { reason: 'no' } }));
      };
      const denied = await chat(leaf({ input_guardrails: [webhook(`${hooks.url}/verdict`, false)] }), 'anything');
      assert.equal(denied.status, 446);
      assert.deepEqual(denied.body.hook_results.before_request_hooks[0].checks[0].data, { reason: 'no' });
      const withHeader = webhook(`${hooks.url}/verdict`, false);
      (withHeader.checks[0]!.parameters as Json).headers = { 'x-hook-auth': 'hook-secret' };
      const rewritten = await chat(leaf({ input_guardrails: [withHeader] }), 'please rewrite me');
      assert.equal(rewritten.status, 200);
      assert.equal(rewritten.body.choices[0].message.content, 'You said: rewritten by the hook');
      const event = hooks.received.at(-1)!;
      assert.equal(event.method, 'POST');
      assert.equal(event.headers['x-hook-auth'], 'hook-secret', 'the endpoint headers reach the webhook');
      assert.equal(event.body!.eventType, 'beforeRequestHook');
      assert.equal(event.body!.requestType, 'chatComplete');
      assert.deepEqual((event.body!.request as { messages: unknown[] }).messages, [{ role: 'user', content: 'please rewrite me' }]);
    });

    test('webhooks on private addresses are refused without a connection; failOnError decides what that means', async () => {
      const received = hooks.received.length;
      for (const url of ['http://127.0.0.2:9/hook', 'http://2130706434:9/hook', 'http://0x7f000002:9/hook', 'http://[::1]:9/hook', 'http://localhost:9/hook']) {
        const open = await chat(leaf({ input_guardrails: [webhook(url, false)] }), 'hi');
        assert.equal(open.status, 200, url);
        assert.match(open.body.hook_results.before_request_hooks[0].checks[0].error, /gw does not send requests to loopback, private/, url);
        const closed = await chat(leaf({ input_guardrails: [webhook(url, true)] }), 'hi');
        assert.equal(closed.status, 446, url);
      }
      assert.equal(hooks.received.length, received);
    });
  });
}
