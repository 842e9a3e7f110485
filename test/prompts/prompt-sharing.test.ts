import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { workspaceWithKey } from '../admin/admin-fixtures.js';
import { fullEngines } from '../helpers/engines.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { LIBRARY_SCOPES } from './prompt-fixtures.js';

for (const engine of fullEngines()) {
  describe(`prompt sharing (${engine.name})`, () => {
    let app: TestApp;
    const admin = () => ({ 'x-gw-api-key': app.adminKey });
    const as = (key: string) => ({ 'x-gw-api-key': key });
    const call = async (method: 'get' | 'post' | 'put' | 'delete', path: string, headers: Record<string, string>, body?: unknown) => {
      const request = app.http[method](path).set(headers);
      return body === undefined ? request : request.send(body as object);
    };

    before(async () => {
      app = await startTestApp({ engine });
    });
    after(async () => {
      await app.close();
    });

    test('share, use, fork and unshare across two workspaces; a workspace with shared prompts cannot be deleted', async () => {
      const a = await workspaceWithKey(app, 'share-a', LIBRARY_SCOPES);
      const b = await workspaceWithKey(app, 'share-b', LIBRARY_SCOPES);
      const keyA = as(a.key);
      const keyB = as(b.key);
      const partial = await call('post', '/v1/prompts/partials', keyA, { name: 'share-sign', string: '-- {{team}}' });
      const prompt = await call('post', '/v1/prompts', keyA, { name: 'share-hello', model: 'gpt-4o', string: 'Hello {{who}} {{>share-sign}}' });
      assert.equal(prompt.status, 201);
      const id = prompt.body.id as string;
      await call('put', `/v1/prompts/${id}`, keyA, { patch: true, string: 'Hi {{who}} {{>share-sign}}' });

      // Not shared yet: invisible to B.
      assert.equal((await call('get', `/v1/prompts/${id}`, keyB)).status, 404);
      assert.equal((await call('post', `/v1/prompts/${id}/render`, keyB, { variables: { who: 'x', team: 't' } })).status, 404);
      // B cannot share A's prompt, nor name a workspace that does not exist.
      assert.equal((await call('post', `/v2/prompts/${id}/share`, keyB, { workspace_ids: [b.workspaceId] })).status, 404);
      const unknownWs = await call('post', `/v2/prompts/${id}/share`, keyA, { workspace_ids: ['nowhere'] });
      assert.equal(unknownWs.status, 400);
      assert.equal(unknownWs.body.error.param, 'workspace_ids[0]');

      const shared = await call('post', `/v2/prompts/${id}/share`, keyA, { workspace_ids: [b.workspaceId, 'share-b'] });
      assert.equal(shared.status, 200, JSON.stringify(shared.body));
      assert.deepEqual(shared.body.shared_with, [b.workspaceId]);

      // Readable and usable in B; writable only in A.
      const seen = await call('get', `/v1/prompts/${id}?show_prompt_share=true`, keyB);
      assert.equal(seen.status, 200);
      assert.equal(seen.body.is_shared, true);
      assert.deepEqual(seen.body.shared_with, [b.workspaceId]);
      const rendered = await call('post', `/v1/prompts/${id}/render`, keyB, { variables: { who: 'Bea', team: 'A-team' } });
      assert.equal(rendered.status, 200, JSON.stringify(rendered.body));
      assert.equal(rendered.body.data.messages[0].content, 'Hello Bea -- A-team', 'its partials are read from its own workspace');
      const write = await call('put', `/v1/prompts/${id}`, keyB, { name: 'taken over' });
      assert.equal(write.status, 403);
      assert.equal(write.body.error.code, 'shared_prompt_read_only');
      assert.equal((await call('put', `/v1/prompts/${id}/makeDefault`, keyB, { version: 2 })).status, 403);
      assert.equal((await call('delete', `/v1/prompts/${id}`, keyB)).status, 403);

      // Lists: type=shared and show_prompt_share.
      const sharedList = await call('get', '/v1/prompts?type=shared&show_prompt_share=true', keyB);
      assert.deepEqual(sharedList.body.data.map((p: { id: string }) => p.id), [id]);
      assert.deepEqual(sharedList.body.data[0].shared_with, [b.workspaceId]);
      assert.equal(sharedList.body.data[0].is_shared, true);
      assert.ok(!(await call('get', '/v1/prompts?type=own', keyB)).body.data.some((p: { id: string }) => p.id === id));
      assert.ok((await call('get', '/v1/prompts', keyB)).body.data.some((p: { id: string }) => p.id === id));
      const ownList = await call('get', '/v1/prompts?show_prompt_share=true', keyA);
      const mine = ownList.body.data.find((p: { id: string }) => p.id === id);
      assert.deepEqual([mine.is_shared, mine.shared_with], [false, [b.workspaceId]]);

      // A workspace that shares prompts cannot be deleted; a shared prompt cannot be deleted either.
      const blocked = await call('delete', `/v1/workspaces/${a.workspaceId}`, admin());
      assert.equal(blocked.status, 409);
      assert.equal(blocked.body.error.code, 'workspace_has_shared_prompts');
      assert.equal((await call('delete', `/v1/prompts/${id}`, keyA)).status, 409);

      // Fork: an independent copy with its versions, in B (a workspace key forks into its own workspace only).
      assert.equal((await call('post', `/v2/prompts/${id}/fork`, keyB, { workspace_id: a.workspaceId })).status, 403);
      const fork = await call('post', `/v2/prompts/${id}/fork`, keyB, { workspace_id: b.workspaceId, name: 'my hello' });
      assert.equal(fork.status, 201, JSON.stringify(fork.body));
      assert.equal(fork.body.workspace_id, b.workspaceId);
      assert.notEqual(fork.body.id, id);
      assert.deepEqual([fork.body.latest_version, fork.body.default_version, fork.body.string], [2, 1, 'Hello {{who}} {{>share-sign}}']);
      const forkVersions = await call('get', `/v1/prompts/${fork.body.id}/versions`, keyB);
      assert.deepEqual(forkVersions.body.data.map((v: { prompt_version: number }) => v.prompt_version), [2, 1]);
      assert.equal((await call('put', `/v1/prompts/${fork.body.id}`, keyB, { patch: true, string: 'Forked {{who}}' })).status, 200);
      assert.equal((await call('get', `/v1/prompts/${id}@latest`, keyA)).body.string, 'Hi {{who}} {{>share-sign}}', 'the source is untouched');

      // Partials share and unshare the same way.
      const partialShare = await call('post', `/v2/prompts/partials/${partial.body.id}/share`, keyA, { workspace_ids: [b.workspaceId] });
      assert.deepEqual(partialShare.body.shared_with, [b.workspaceId]);
      assert.equal((await call('get', `/v1/prompts/partials/${partial.body.id}`, keyB)).status, 200);
      assert.deepEqual((await call('get', '/v1/prompts/partials?type=shared', keyB)).body.data.map((p: { id: string }) => p.id), [partial.body.id]);
      assert.equal((await call('put', `/v1/prompts/partials/${partial.body.id}`, keyB, { string: 'x' })).status, 403);
      const partialFork = await call('post', `/v2/prompts/partials/${partial.body.id}/fork`, keyB, { workspace_id: b.workspaceId });
      assert.equal(partialFork.status, 201);
      assert.equal(partialFork.body.string, '-- {{team}}');
      const partialUnshare = await call('post', `/v2/prompts/partials/${partial.body.id}/unshare`, keyA, {});
      assert.deepEqual(partialUnshare.body.shared_with, []);
      assert.equal((await call('get', `/v1/prompts/partials/${partial.body.id}`, keyB)).status, 404);

      // Unshare (DELETE): B loses it at once (the gateway's cache too); its fork stays.
      const unshared = await call('delete', `/v2/prompts/${id}/unshare?workspace_id=${b.workspaceId}`, keyA);
      assert.equal(unshared.status, 200);
      assert.deepEqual(unshared.body.shared_with, []);
      assert.equal((await call('get', `/v1/prompts/${id}`, keyB)).status, 404);
      assert.equal((await call('post', `/v1/prompts/${id}/render`, keyB, { variables: { who: 'x', team: 't' } })).status, 404);
      assert.equal((await call('get', `/v1/prompts/${fork.body.id}`, keyB)).status, 200);

      // Nothing shared any more: the workspace can go.
      assert.equal((await call('delete', `/v1/workspaces/${a.workspaceId}`, admin())).status, 200);
    });

    test('a shared partial alone blocks its workspace delete; each refusal answers in the error body', async () => {
      const a = await workspaceWithKey(app, 'share-e', LIBRARY_SCOPES);
      const b = await workspaceWithKey(app, 'share-f', LIBRARY_SCOPES);
      const refused = (response: { status: number; body: { error?: { code?: unknown; message?: unknown; type?: unknown } } }, status: number) => {
        assert.equal(response.status, status);
        assert.equal(typeof response.body.error?.code, 'string');
        assert.equal(typeof response.body.error?.message, 'string');
        assert.equal(typeof response.body.error?.type, 'string');
        return response.body.error!.code;
      };
      const partial = await call('post', '/v1/prompts/partials', as(a.key), { name: 'share-only-partial', string: 'p' });
      await call('post', `/v2/prompts/partials/${partial.body.id}/share`, as(a.key), { workspace_ids: [b.workspaceId] });
      assert.equal(refused(await call('delete', `/v1/workspaces/${a.workspaceId}`, admin()), 409), 'workspace_has_shared_prompts');
      refused(await call('put', `/v1/prompts/partials/${partial.body.id}/makeDefault`, as(b.key), { version: 1 }), 403);
      refused(await call('delete', `/v1/prompts/partials/${partial.body.id}`, as(b.key)), 403);
      refused(await call('post', `/v2/prompts/partials/${partial.body.id}/fork`, as(b.key), { workspace_id: a.workspaceId }), 403);
      await call('post', `/v2/prompts/partials/${partial.body.id}/unshare`, as(a.key), {});
      assert.equal((await call('delete', `/v1/workspaces/${a.workspaceId}`, admin())).status, 200);
    });

    test('the share, fork and unshare writes are audited; deleting a workspace a prompt is shared with drops the share', async () => {
      const a = await workspaceWithKey(app, 'share-c', LIBRARY_SCOPES);
      const b = await workspaceWithKey(app, 'share-d', LIBRARY_SCOPES);
      const prompt = await call('post', '/v1/prompts', as(a.key), { name: 'share-audit', string: 'x' });
      await call('post', `/v2/prompts/${prompt.body.id}/share`, admin(), { workspace_ids: [b.workspaceId] });
      await call('post', `/v2/prompts/${prompt.body.id}/fork`, admin(), { workspace_id: b.workspaceId });
      await call('post', `/v2/prompts/${prompt.body.id}/unshare`, admin(), { workspace_ids: [b.workspaceId] });
      const actions = (await app.services.db('audit_logs').whereIn('action', ['sharePrompt', 'forkPrompt', 'unsharePrompt']).select('action')).map((r: { action: string }) => r.action);
      for (const action of ['sharePrompt', 'forkPrompt', 'unsharePrompt']) assert.ok(actions.includes(action), action);

      await call('post', `/v2/prompts/${prompt.body.id}/share`, admin(), { workspace_ids: [b.workspaceId] });
      // b does not own a shared prompt (its fork is not shared): it can be deleted, and the share goes with it.
      assert.equal((await call('delete', `/v1/workspaces/${b.workspaceId}`, admin())).status, 200);
      assert.deepEqual((await call('get', `/v1/prompts/${prompt.body.id}?show_prompt_share=true`, admin())).body.shared_with, []);
    });

    test("a template including another workspace's partial that is not shared is refused when saved, as its render would be", async () => {
      const a = await workspaceWithKey(app, 'xw-a', LIBRARY_SCOPES);
      const b = await workspaceWithKey(app, 'xw-b', LIBRARY_SCOPES);
      const partial = await call('post', '/v1/prompts/partials', as(a.key), { name: 'xw-sign', string: '-- A' });
      assert.equal(partial.status, 201, JSON.stringify(partial.body));
      const refused = (response: { status: number; body: { error: { code: string; param: string } } }) => {
        assert.equal(response.status, 400, JSON.stringify(response.body));
        assert.deepEqual([response.body.error.code, response.body.error.param], ['unknown_partial', 'partials.xw-sign']);
      };

      refused(await call('post', '/v1/prompts', as(b.key), { name: 'xw-hello', model: 'gpt-4o', string: 'Hi {{>xw-sign}}' }));
      refused(await call('post', '/v1/prompts', admin(), { name: 'xw-hello', model: 'gpt-4o', string: 'Hi {{>xw-sign}}', workspace_id: b.workspaceId }));
      // Nested: B's own partial including A's, and B's prompt including that one.
      refused(await call('post', '/v1/prompts/partials', as(b.key), { name: 'xw-wrap', string: '[{{>xw-sign}}]' }));
      const wrap = await call('post', '/v1/prompts/partials', as(b.key), { name: 'xw-wrap', string: '[plain]' });
      assert.equal(wrap.status, 201, JSON.stringify(wrap.body));
      refused(await call('put', `/v1/prompts/partials/${wrap.body.id}`, as(b.key), { string: '[{{>xw-sign}}]' }));
      const hello = await call('post', '/v1/prompts', as(b.key), { name: 'xw-hello', model: 'gpt-4o', string: 'Hi {{>xw-wrap}}' });
      assert.equal(hello.status, 201, JSON.stringify(hello.body));
      refused(await call('put', `/v1/prompts/${hello.body.id}`, as(b.key), { patch: true, string: 'Hi {{>xw-sign}}' }));
      // A partial that does not exist yet may still be named (it can be saved later); A's own prompt may use A's partial.
      assert.equal((await call('post', '/v1/prompts', as(b.key), { name: 'xw-later', model: 'gpt-4o', string: 'Hi {{>xw-not-yet}}' })).status, 201);
      assert.equal((await call('post', '/v1/prompts', as(a.key), { name: 'xw-own', model: 'gpt-4o', string: 'Hi {{>xw-sign}}' })).status, 201);

      // Shared with B, it is B's to include, and renders there.
      assert.equal((await call('post', `/v2/prompts/partials/${partial.body.id}/share`, as(a.key), { workspace_ids: [b.workspaceId] })).status, 200);
      const updated = await call('put', `/v1/prompts/${hello.body.id}`, as(b.key), { patch: true, string: 'Hi {{>xw-sign}}' });
      assert.equal(updated.status, 200, JSON.stringify(updated.body));
      const rendered = await call('post', `/v1/prompts/${hello.body.id}@latest/render`, as(b.key), { variables: {} });
      assert.equal(rendered.status, 200, JSON.stringify(rendered.body));
      assert.equal(rendered.body.data.messages[0].content, 'Hi -- A');
    });
  });
}
