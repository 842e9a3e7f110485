/**
 * Assistants, threads and messages through the official `openai` client's beta helpers: OpenAI's
 * wire shapes, its list envelope with after/before/limit/order, workspace scoping, the audit
 * entries of writes, and the 400s that name the field.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { storeEngines } from '../helpers/engines.js';
import { ADMIN_KEY, startTestApp, type TestApp } from '../helpers/test-app.js';

for (const engine of storeEngines()) describe(`assistants, threads, messages (${engine.name})`, () => {
  let app: TestApp;
  let client: OpenAI;

  before(async () => {
    app = await startTestApp({ engine });
    // The gw key as the client's own API key: Authorization: Bearer <gw key>.
    client = new OpenAI({ apiKey: ADMIN_KEY, baseURL: `${app.url}/v1`, maxRetries: 0 });
  });
  after(async () => {
    await app?.close();
  });

  it('creates, gets, modifies, lists and deletes assistants', async () => {
    const created = await client.beta.assistants.create({ model: 'gpt-4o-mini', name: 'Helper', instructions: 'Be brief.', tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }], metadata: { team: 'a' } });
    assert.match(created.id, /^asst_/);
    assert.equal(created.object, 'assistant');
    assert.equal(created.model, 'gpt-4o-mini');
    assert.equal(created.tools[0]!.type, 'function');
    assert.deepEqual(await client.beta.assistants.retrieve(created.id), created);
    const modified = await client.beta.assistants.update(created.id, { name: 'Renamed', metadata: { team: 'b' } });
    assert.equal(modified.name, 'Renamed');
    assert.equal(modified.instructions, 'Be brief.');
    assert.equal((await client.beta.assistants.retrieve(created.id)).name, 'Renamed');
    const deleted = await client.beta.assistants.delete(created.id);
    assert.deepEqual(deleted, { id: created.id, object: 'assistant.deleted', deleted: true });
    await assert.rejects(client.beta.assistants.retrieve(created.id), (error: InstanceType<typeof OpenAI.APIError>) => error.status === 404);
  });

  it('pages lists with limit, order, after and before, in the list envelope', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await client.beta.assistants.create({ model: 'm', name: `p${i}` })).id);
    const raw = await fetch(`${app.url}/v1/assistants?limit=2&order=asc`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } }).then((r) => r.json() as Promise<Record<string, unknown>>);
    assert.equal(raw.object, 'list');
    assert.equal(raw.has_more, true);
    const page1 = await client.beta.assistants.list({ limit: 2, order: 'asc' });
    const firstTwo = page1.data.map((a) => a.id);
    assert.deepEqual(raw.first_id, firstTwo[0]);
    assert.deepEqual(raw.last_id, firstTwo[1]);
    // Every assistant made here, oldest first, by walking the pages the client's iterator follows (after=last_id).
    const all: string[] = [];
    for await (const assistant of client.beta.assistants.list({ limit: 2, order: 'asc' })) all.push(assistant.id);
    assert.deepEqual(all.slice(-5), ids);
    const newestFirst = await client.beta.assistants.list({ limit: 5 });
    assert.deepEqual(newestFirst.data.map((a) => a.id), [...ids].reverse());
    const beforeThird = await client.beta.assistants.list({ order: 'asc', before: ids[2], limit: 1 });
    assert.deepEqual(beforeThird.data.map((a) => a.id), [ids[1]]);
    const afterThird = await client.beta.assistants.list({ order: 'asc', after: ids[2] });
    assert.deepEqual(afterThird.data.map((a) => a.id), [ids[3], ids[4]]);
  });

  it('creates a thread with messages, adds, lists, modifies and deletes messages, and deletes the thread', async () => {
    const thread = await client.beta.threads.create({ messages: [{ role: 'user', content: 'one' }, { role: 'assistant', content: 'two' }, { role: 'user', content: [{ type: 'text', text: 'three' }] }], metadata: { k: 'v' } });
    assert.match(thread.id, /^thread_/);
    assert.deepEqual(thread.metadata, { k: 'v' });
    const added = await client.beta.threads.messages.create(thread.id, { role: 'user', content: 'four' });
    assert.equal(added.object, 'thread.message');
    assert.equal(added.thread_id, thread.id);
    assert.deepEqual(added.content, [{ type: 'text', text: { value: 'four', annotations: [] } }]);
    const listed = await client.beta.threads.messages.list(thread.id, { order: 'asc' });
    assert.deepEqual(
      listed.data.map((m) => (m.content[0] as OpenAI.Beta.Threads.TextContentBlock).text.value),
      ['one', 'two', 'three', 'four'],
    );
    const modified = await client.beta.threads.messages.update(added.id, { thread_id: thread.id, metadata: { seen: 'yes' } });
    assert.deepEqual(modified.metadata, { seen: 'yes' });
    assert.deepEqual((await client.beta.threads.messages.retrieve(added.id, { thread_id: thread.id })).metadata, { seen: 'yes' });
    assert.equal((await client.beta.threads.messages.delete(added.id, { thread_id: thread.id })).deleted, true);
    assert.equal((await client.beta.threads.messages.list(thread.id)).data.length, 3);
    assert.deepEqual((await client.beta.threads.update(thread.id, { metadata: { k: 'w' } })).metadata, { k: 'w' });
    assert.equal((await client.beta.threads.retrieve(thread.id)).id, thread.id);
    assert.deepEqual(await client.beta.threads.delete(thread.id), { id: thread.id, object: 'thread.deleted', deleted: true });
    await assert.rejects(client.beta.threads.messages.list(thread.id), (error: InstanceType<typeof OpenAI.APIError>) => error.status === 404);
  });

  it('refuses bad input with 400 naming the field', async () => {
    const refused = async (send: () => Promise<unknown>, param: string) =>
      assert.rejects(send(), (error: InstanceType<typeof OpenAI.APIError>) => {
        assert.equal(error.status, 400);
        assert.equal((error.error as { param?: string }).param, param);
        return true;
      });
    await refused(() => client.beta.assistants.create({ model: 'm', temperature: 3 }), 'temperature');
    await refused(() => client.beta.assistants.create({ model: 'm', name: 'x'.repeat(257) }), 'name');
    await refused(() => client.beta.threads.create({ messages: [{ role: 'user', content: [{ type: 'image_file', image_file: { file_id: 'file_1' } }] }] }), 'messages[0].content[0].type');
  });

  it('keeps each workspace to its own objects, and audits the writes', async () => {
    const assistant = await client.beta.assistants.create({ model: 'm', name: 'mine' });
    const other = await app.http.post('/v1/workspaces').set('x-gw-api-key', ADMIN_KEY).send({ name: 'Other ws' });
    const key = await app.http.post('/v1/api-keys/workspace/service').set('x-gw-api-key', ADMIN_KEY).send({ name: 'o', workspace_id: other.body.id, scopes: ['assistants.read', 'assistants.write'] });
    const outsider = new OpenAI({ apiKey: key.body.key, baseURL: `${app.url}/v1`, maxRetries: 0 });
    await assert.rejects(outsider.beta.assistants.retrieve(assistant.id), (error: InstanceType<typeof OpenAI.APIError>) => error.status === 404);
    assert.equal((await outsider.beta.assistants.list()).data.length, 0);
    // Without the threads scope the key may not touch threads.
    await assert.rejects(outsider.beta.threads.create({}), (error: InstanceType<typeof OpenAI.APIError>) => error.status === 403);
    const audit = await app.http.get('/v1/audit-logs').set('x-gw-api-key', ADMIN_KEY).query({ limit: 50 });
    const entry = (audit.body.data as Array<{ action: string; resource_id: string; resource_type: string }>).find((e) => e.action === 'createAssistant' && e.resource_id === assistant.id);
    assert.equal(entry?.resource_type, 'assistants');
  });
});
