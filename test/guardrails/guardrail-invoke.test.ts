/**
 * Guardrails on demand: POST /v1/guardrails/{id}/invoke runs a saved guardrail and
 * POST /v1/guardrails/invoke an inline set of checks on a text or a message list, with no model
 * call; the verdict and each check's result come back, the run is logged (endpoint
 * guardrails.invoke) and the guardrails.invoke scope is required.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fullEngines } from '../helpers/engines.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { otherWorkspace, workspaceKey } from '../logs/log-fixtures.js';

for (const engine of fullEngines()) {
  describe(`guardrails on demand (${engine.name})`, () => {
    let app: TestApp;
    let invoker: string;
    const admin = () => ({ 'x-gw-api-key': app.adminKey });

    before(async () => {
      app = await startTestApp({ engine });
      invoker = await workspaceKey(app, app.boot.workspaceId, ['guardrails.invoke']);
      const saved = await app.http
        .post('/v1/guardrails')
        .set(admin())
        .send({ name: 'No ticket numbers', slug: 'no-tickets', workspace_id: app.boot.workspaceId, checks: [{ id: 'default.regexMatch', parameters: { rule: 'TICKET-\\d+', not: true } }, { id: 'default.wordCount', parameters: { maxWords: 5 } }], actions: { deny: true } });
      assert.equal(saved.status, 201, JSON.stringify(saved.body));
    });
    after(() => app.close());

    const invoke = (path: string, body: object, key = invoker) => app.http.post(path).set({ 'x-gw-api-key': key }).send(body);

    test('a saved guardrail on a text: the verdict, each check, and a log row counted with the guardrail runs', async () => {
      const failed = await invoke('/v1/guardrails/no-tickets/invoke', { input: 'see TICKET-42', metadata: { team: 'support' } });
      assert.equal(failed.status, 200, JSON.stringify(failed.body));
      assert.equal(failed.body.object, 'guardrail.invocation');
      assert.equal(failed.body.slug, 'no-tickets');
      assert.equal(failed.body.phase, 'input');
      assert.equal(failed.body.verdict, false);
      assert.equal(failed.body.deny, true);
      assert.deepEqual(failed.body.checks.map((check: { id: string; verdict: boolean }) => [check.id, check.verdict]), [['default.regexMatch', false], ['default.wordCount', true]]);

      const passed = await invoke('/v1/guardrails/no-tickets/invoke', { input: 'all good here' });
      assert.equal(passed.body.verdict, true);

      await app.services.requestLogs.flush();
      const rows = await app.services.db('request_logs').where({ endpoint: 'guardrails.invoke' }).orderBy('created_at');
      assert.equal(rows.length, 2);
      const results = typeof rows[0].guardrail_results === 'string' ? JSON.parse(rows[0].guardrail_results) : rows[0].guardrail_results;
      assert.equal(results[0].slug, 'no-tickets');
      assert.equal(results[0].verdict, false);
      assert.equal(Number(rows[0].cost), 0);
      assert.equal(rows[0].provider, null, 'no model was called');
      const listed = await app.http.get('/v1/logs').query({ limit: 10 }).set(admin());
      assert.ok(listed.body.data.some((log: { endpoint: string }) => log.endpoint === 'guardrails.invoke'));
    });

    test('inline checks on a message list as an answer: the rewritten text comes back', async () => {
      const run = await invoke('/v1/guardrails/invoke', {
        phase: 'output',
        checks: [{ id: 'default.pii', parameters: { categories: ['email'], redact: true } }],
        input: [
          { role: 'user', content: 'who do I write to?' },
          { role: 'assistant', content: 'Write to ops@example.com' },
        ],
      });
      assert.equal(run.status, 200, JSON.stringify(run.body));
      assert.equal(run.body.id, null);
      assert.equal(run.body.phase, 'output');
      assert.equal(run.body.verdict, true);
      assert.equal(run.body.transformed, true);
      assert.ok(!run.body.text.includes('ops@example.com'));
      assert.match(run.body.text, /^Write to /);
    });

    test('refused: no scope, another workspace\'s guardrail, bad input', async () => {
      const noScope = await workspaceKey(app, app.boot.workspaceId, ['guardrails.read']);
      const denied = await invoke('/v1/guardrails/no-tickets/invoke', { input: 'x' }, noScope);
      assert.equal(denied.status, 403);
      assert.equal(denied.body.error.code, 'missing_scope');
      assert.equal((await invoke('/v1/guardrails/invoke', { input: 'x', checks: [{ id: 'default.wordCount', parameters: { maxWords: 1 } }] }, noScope)).status, 403);

      const elsewhere = await otherWorkspace(app, 'elsewhere');
      const theirs = await app.http
        .post('/v1/guardrails')
        .set(admin())
        .send({ name: 'Theirs', slug: 'theirs', workspace_id: elsewhere, checks: [{ id: 'default.wordCount', parameters: { maxWords: 1 } }] });
      assert.equal(theirs.status, 201);
      const hidden = await invoke('/v1/guardrails/theirs/invoke', { input: 'x' });
      assert.equal(hidden.status, 404);
      assert.equal(hidden.body.error.code, 'not_found');

      const noInput = await invoke('/v1/guardrails/no-tickets/invoke', {});
      assert.equal(noInput.status, 400);
      assert.equal(noInput.body.error.param, 'input');
      const unknownCheck = await invoke('/v1/guardrails/invoke', { input: 'x', checks: [{ id: 'default.nope' }] });
      assert.equal(unknownCheck.status, 400);
      assert.equal(unknownCheck.body.error.code, 'unknown_guardrail_check');
      assert.equal(unknownCheck.body.error.param, 'checks[0].id');
      const noUser = await invoke('/v1/guardrails/no-tickets/invoke', { input: [{ role: 'system', content: 'be nice' }] });
      assert.equal(noUser.status, 400);
      assert.equal(noUser.body.error.code, 'no_text_to_check');
      const notAnAnswer = await invoke('/v1/guardrails/no-tickets/invoke', { phase: 'output', input: [{ role: 'user', content: 'hi' }] });
      assert.equal(notAnAnswer.status, 400);
      assert.equal(notAnAnswer.body.error.param, 'input[0].role');
    });
  });
}
