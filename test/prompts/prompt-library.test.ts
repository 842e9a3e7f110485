import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fullEngines } from '../helpers/engines.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { workspaceWithKey } from '../admin/admin-fixtures.js';
import { LIBRARY_SCOPES } from './prompt-fixtures.js';

for (const engine of fullEngines()) {
  describe(`prompt library (${engine.name})`, () => {
    let app: TestApp;
    const admin = () => ({ 'x-gw-api-key': app.adminKey });
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

    test('versions are immutable: content changes add versions, makeDefault and labels decide what an address answers', async () => {
      const created = await call('post', '/v1/prompts', admin(), { name: 'Support reply', string: 'Hello {{name}}', model: 'gpt-4o', parameters: { temperature: 0.2 } });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const id = created.body.id as string;
      assert.equal(created.body.slug, 'support-reply');
      assert.equal(created.body.prompt_version, 1);
      assert.equal(created.body.default_version, 1);
      const defaultCollection = created.body.collection_id;

      // A content change adds version 2 and leaves the default where it was.
      const v2 = await call('put', `/v1/prompts/${id}`, admin(), { string: 'Hi {{name}}', model: 'gpt-4o' });
      assert.equal(v2.status, 200, JSON.stringify(v2.body));
      assert.deepEqual([v2.body.prompt_version, v2.body.new_version], [2, true]);
      assert.equal((await call('get', `/v1/prompts/${id}`, admin())).body.string, 'Hello {{name}}');

      // Without patch the fields sent are the whole template: string is required.
      const noString = await call('put', `/v1/prompts/${id}`, admin(), { model: 'gpt-4o-mini' });
      assert.equal(noString.status, 400);
      assert.equal(noString.body.error.param, 'string');
      // With patch, missing fields come from the latest version.
      const v3 = await call('put', `/v1/prompts/${id}`, admin(), { patch: true, model: 'gpt-4o-mini', version_description: 'cheaper' });
      assert.deepEqual([v3.body.prompt_version, v3.body.new_version], [3, true]);
      const at3 = await call('get', `/v1/prompts/${id}@3`, admin());
      assert.equal(at3.status, 200, JSON.stringify(at3.body));
      assert.deepEqual([at3.body.string, at3.body.model, at3.body.prompt_version_description], ['Hi {{name}}', 'gpt-4o-mini', 'cheaper']);
      // Version 2 was sent without patch and without parameters: version 3 (patched from 2) has none either.
      assert.deepEqual(at3.body.parameters, {});
      assert.deepEqual((await call('get', `/v1/prompts/${id}@1`, admin())).body.parameters, { temperature: 0.2 });

      // Name, description and collection change without a version; the same template adds none.
      const collection = await call('post', '/v1/collections', admin(), { name: 'Support' });
      const renamed = await call('put', `/v1/prompts/${id}`, admin(), { name: 'Support reply v2', description: 'the reply', collection_id: collection.body.slug });
      assert.equal(renamed.body.new_version, false);
      const same = await call('put', `/v1/prompts/${id}`, admin(), { patch: true, model: 'gpt-4o-mini' });
      assert.deepEqual([same.body.prompt_version, same.body.new_version], [3, false]);
      const got = await call('get', '/v1/prompts/support-reply', admin());
      assert.deepEqual([got.body.name, got.body.description, got.body.collection_id, got.body.latest_version], ['Support reply v2', 'the reply', collection.body.id, 3]);
      assert.notEqual(got.body.collection_id, defaultCollection);

      // makeDefault moves what `id` answers.
      const made = await call('put', `/v1/prompts/${id}/makeDefault`, admin(), { version: 2 });
      assert.equal(made.status, 200);
      assert.equal((await call('get', `/v1/prompts/${id}`, admin())).body.prompt_version, 2);
      const noVersion = await call('put', `/v1/prompts/${id}/makeDefault`, admin(), { version: 9 });
      assert.equal(noVersion.status, 400);
      assert.equal(noVersion.body.error.param, 'version');

      // A label points at one version: moving it takes it off the other.
      const versions = await call('get', `/v1/prompts/${id}/versions`, admin());
      assert.deepEqual(versions.body.data.map((v: { prompt_version: number }) => v.prompt_version), [3, 2, 1]);
      assert.equal(versions.body.data.find((v: { is_default: boolean }) => v.is_default).prompt_version, 2);
      const v1Id = versions.body.data[2].id;
      const labelled = await call('put', `/v1/prompts/${id}/versions/${v1Id}`, admin(), { label_id: 'production' });
      assert.equal(labelled.status, 200, JSON.stringify(labelled.body));
      assert.ok(labelled.body.label_id);
      assert.equal((await call('get', `/v1/prompts/${id}@production`, admin())).body.prompt_version, 1);
      await call('put', `/v1/prompts/${id}/versions/3`, admin(), { label_id: labelled.body.label_id });
      assert.equal((await call('get', `/v1/prompts/support-reply@production`, admin())).body.prompt_version, 3);
      assert.equal((await call('get', `/v1/prompts/${id}/versions/1`, admin())).body.prompt_version_label_id, null);
      assert.equal((await call('get', `/v1/prompts/${id}@staging`, admin())).status, 404);
      assert.equal((await call('get', `/v1/prompts/${id}@latest`, admin())).body.prompt_version, 3);
      // Versions are immutable: only label_id is accepted.
      const immutable = await call('put', `/v1/prompts/${id}/versions/1`, admin(), { label_id: null, string: 'changed' });
      assert.equal(immutable.status, 400);
      assert.equal(immutable.body.error.param, 'string');
      const unknownLabel = await call('put', `/v1/prompts/${id}/versions/1`, admin(), { label_id: 'no-such-label' });
      assert.equal(unknownLabel.status, 400);
      assert.equal(unknownLabel.body.error.param, 'label_id');

      // A broken template never becomes a version.
      const broken = await call('put', `/v1/prompts/${id}`, admin(), { patch: true, string: 'Hi {{#open}}' });
      assert.equal(broken.status, 400);
      assert.equal(broken.body.error.param, 'string');

      // Every write is audited.
      const audits = await app.services.db('audit_logs').where({ resource_id: id }).select('action');
      const actions = new Set(audits.map((row: { action: string }) => row.action));
      for (const action of ['createPrompt', 'updatePrompt', 'updatePromptDefault', 'updatePromptVersion']) assert.ok(actions.has(action), action);

      const deleted = await call('delete', `/v1/prompts/${id}`, admin());
      assert.equal(deleted.status, 200);
      assert.equal((await call('get', `/v1/prompts/${id}`, admin())).status, 404);
    });

    test('list: by collection, search, paged', async () => {
      const collection = await call('post', '/v1/collections', admin(), { name: 'Listing' });
      for (const name of ['alpha one', 'alpha two', 'beta']) {
        assert.equal((await call('post', '/v1/prompts', admin(), { name, string: 'x', collection_id: collection.body.id })).status, 201);
      }
      const page = await call('get', `/v1/prompts?collection_id=${collection.body.id}&limit=2`, admin());
      assert.equal(page.body.data.length, 2);
      assert.equal(page.body.has_more, true);
      const rest = await call('get', `/v1/prompts?collection_id=${collection.body.id}&limit=2&cursor=${page.body.next_cursor}`, admin());
      assert.equal(rest.body.data.length, 1);
      const search = await call('get', `/v1/prompts?collection_id=${collection.body.id}&search=ALPHA`, admin());
      assert.deepEqual(search.body.data.map((p: { name: string }) => p.name).sort(), ['alpha one', 'alpha two']);
    });

    test('partials follow the same version rules', async () => {
      const created = await call('post', '/v1/prompts/partials', admin(), { name: 'Signature', string: 'Regards, {{agent}}' });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.equal(created.body.version, 1);
      const v2 = await call('put', `/v1/prompts/partials/${created.body.id}`, admin(), { string: 'Best, {{agent}}' });
      assert.deepEqual([v2.body.version, v2.body.new_version], [2, true]);
      assert.equal((await call('get', '/v1/prompts/partials/signature', admin())).body.string, 'Regards, {{agent}}');
      assert.equal((await call('put', `/v1/prompts/partials/${created.body.id}/makeDefault`, admin(), { version: 2 })).status, 200);
      assert.equal((await call('get', '/v1/prompts/partials/signature', admin())).body.string, 'Best, {{agent}}');
      assert.equal((await call('get', '/v1/prompts/partials/signature@1', admin())).body.string, 'Regards, {{agent}}');
      const versions = await call('get', `/v1/prompts/partials/${created.body.id}/versions`, admin());
      assert.deepEqual(versions.body.data.map((v: { version: number }) => v.version), [2, 1]);
      const list = await call('get', '/v1/prompts/partials', admin());
      assert.ok(list.body.data.some((p: { id: string }) => p.id === created.body.id));
      // Partials and prompts are different things: a partial is not a prompt.
      assert.equal((await call('get', `/v1/prompts/${created.body.id}`, admin())).status, 404);
    });

    test('collections nest; the default one cannot be deleted; a non-empty one is kept', async () => {
      const list = await call('get', '/v1/collections', admin());
      assert.equal(list.status, 200);
      const defaults = list.body.data.filter((c: { is_default: boolean }) => c.is_default);
      assert.equal(defaults.length, 1);
      const refused = await call('delete', `/v1/collections/${defaults[0].id}`, admin());
      assert.equal(refused.status, 404);
      assert.equal(refused.body.error.type, 'not_found_error');

      const parent = await call('post', '/v1/collections', admin(), { name: 'Parent' });
      const child = await call('post', '/v1/collections', admin(), { name: 'Child', parent_collection_id: parent.body.slug });
      assert.equal(child.body.parent_collection_id, parent.body.id);
      const got = await call('get', `/v1/collections/${parent.body.id}`, admin());
      assert.deepEqual(got.body.child_collections.map((c: { id: string }) => c.id), [child.body.id]);
      assert.equal(got.body.collection_details.child_collections_count, 1);
      assert.equal((await call('delete', `/v1/collections/${parent.body.id}`, admin())).status, 409);
      assert.equal((await call('put', `/v1/collections/${child.body.id}`, admin(), { name: 'Renamed' })).body.name, 'Renamed');
      assert.equal((await call('delete', `/v1/collections/${child.body.id}`, admin())).status, 200);
      assert.equal((await call('delete', `/v1/collections/${parent.body.id}`, admin())).status, 200);
      const badParent = await call('post', '/v1/collections', admin(), { name: 'Orphan', parent_collection_id: 'nope' });
      assert.equal(badParent.status, 400);
      assert.equal(badParent.body.error.param, 'parent_collection_id');
    });

    test('labels: three built in, reserved names refused, names unique where they would clash', async () => {
      const list = await call('get', '/v1/labels', admin());
      const names = list.body.data.map((l: { name: string }) => l.name);
      for (const name of ['production', 'staging', 'development']) assert.ok(names.includes(name), name);
      for (const name of ['latest', 'default', '123']) {
        const refused = await call('post', '/v1/labels', admin(), { name });
        assert.equal(refused.status, 400, name);
        assert.equal(refused.body.error.param, 'name');
      }
      const canary = await call('post', '/v1/labels', admin(), { name: 'canary', color_code: '#ff0000' });
      assert.equal(canary.status, 201);
      assert.equal(canary.body.workspace_id, null);
      assert.equal((await call('post', '/v1/labels', admin(), { name: 'canary' })).status, 409);
      const production = list.body.data.find((l: { name: string }) => l.name === 'production');
      assert.equal((await call('delete', `/v1/labels/${production.id}`, admin())).status, 403);
      assert.equal((await call('put', `/v1/labels/${canary.body.id}`, admin(), { description: 'early' })).body.description, 'early');
      assert.equal((await call('delete', `/v1/labels/${canary.body.id}`, admin())).status, 200);
    });

    test('workspace keys see their workspace (and only write there); admin keys see all; scopes are enforced', async () => {
      const a = await workspaceWithKey(app, 'prompts-ws-a', LIBRARY_SCOPES);
      const b = await workspaceWithKey(app, 'prompts-ws-b', LIBRARY_SCOPES);
      const readOnly = await workspaceWithKey(app, 'prompts-ws-ro', ['prompts.read', 'prompts.list']);
      const keyA = { 'x-gw-api-key': a.key };
      const keyB = { 'x-gw-api-key': b.key };
      const inA = await call('post', '/v1/prompts', keyA, { name: 'A only', string: 'a' });
      assert.equal(inA.status, 201, JSON.stringify(inA.body));
      assert.equal(inA.body.workspace_id, a.workspaceId);
      assert.equal((await call('get', `/v1/prompts/${inA.body.id}`, keyB)).status, 404);
      assert.equal((await call('put', `/v1/prompts/${inA.body.id}`, keyB, { name: 'x' })).status, 404);
      assert.ok(!(await call('get', '/v1/prompts', keyB)).body.data.some((p: { id: string }) => p.id === inA.body.id));
      assert.equal((await call('post', '/v1/prompts', keyB, { name: 'elsewhere', string: 'b', workspace_id: a.workspaceId })).status, 403);
      assert.equal((await call('get', `/v1/prompts/${inA.body.id}`, admin())).status, 200);
      assert.ok((await call('get', '/v1/prompts?limit=100', admin())).body.data.some((p: { id: string }) => p.id === inA.body.id));
      // A collection of another workspace cannot hold the prompt.
      const collectionB = await call('post', '/v1/collections', keyB, { name: 'B stuff' });
      const crossed = await call('put', `/v1/prompts/${inA.body.id}`, keyA, { collection_id: collectionB.body.id });
      assert.equal(crossed.status, 400);
      assert.equal(crossed.body.error.param, 'collection_id');
      // Scopes.
      const noScope = await call('post', '/v1/prompts', { 'x-gw-api-key': readOnly.key }, { name: 'nope', string: 'x' });
      assert.equal(noScope.status, 403);
      // A workspace label is the workspace's: the other workspace neither sees it nor can use it.
      const label = await call('post', '/v1/labels', keyA, { name: 'a-canary' });
      assert.equal(label.body.workspace_id, a.workspaceId);
      assert.equal((await call('get', `/v1/labels/${label.body.id}`, keyB)).status, 404);
      const versionsA = await call('get', `/v1/prompts/${inA.body.id}/versions`, keyA);
      assert.equal((await call('put', `/v1/prompts/${inA.body.id}/versions/${versionsA.body.data[0].id}`, keyA, { label_id: 'a-canary' })).status, 200);
      assert.equal((await call('get', `/v1/prompts/${inA.body.id}@a-canary`, keyA)).body.prompt_version, 1);
    });

    test("an organisation key naming another workspace's collection puts the prompt in that workspace; only a real mismatch is refused", async () => {
      const other = await workspaceWithKey(app, 'collections-elsewhere', LIBRARY_SCOPES);
      const collection = await call('post', '/v1/collections', { 'x-gw-api-key': other.key }, { name: 'Elsewhere' });
      assert.equal(collection.status, 201, JSON.stringify(collection.body));
      assert.equal(collection.body.workspace_id, other.workspaceId);

      for (const [kind, path] of [['prompt', '/v1/prompts'], ['partial', '/v1/prompts/partials']] as const) {
        for (const reference of [collection.body.id, collection.body.slug]) {
          const created = await call('post', path, admin(), { name: `derived ${kind} ${reference}`, string: 'hi', collection_id: reference });
          assert.equal(created.status, 201, JSON.stringify(created.body));
          const got = await call('get', `${path}/${created.body.id}`, admin());
          assert.deepEqual([got.body.workspace_id, got.body.collection_id], [other.workspaceId, collection.body.id]);
        }
      }

      const mismatch = await call('post', '/v1/prompts', admin(), { name: 'mismatch', string: 'hi', collection_id: collection.body.id, workspace_id: app.boot.workspaceId });
      assert.equal(mismatch.status, 400, JSON.stringify(mismatch.body));
      assert.deepEqual([mismatch.body.error.code, mismatch.body.error.param], ['collection_workspace_mismatch', 'collection_id']);
      const unknown = await call('post', '/v1/prompts', admin(), { name: 'unknown', string: 'hi', collection_id: 'no-such-collection' });
      assert.deepEqual([unknown.status, unknown.body.error.code], [400, 'collection_not_found']);
      // A workspace key is not told about other workspaces' collections.
      const own = await workspaceWithKey(app, 'collections-own', LIBRARY_SCOPES);
      const foreign = await call('post', '/v1/prompts', { 'x-gw-api-key': own.key }, { name: 'foreign', string: 'hi', collection_id: collection.body.id });
      assert.deepEqual([foreign.status, foreign.body.error.code], [400, 'collection_not_found']);
    });
  });
}
