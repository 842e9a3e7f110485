import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fullEngines } from '../helpers/engines.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

for (const engine of fullEngines()) {
  describe(`prompt render (${engine.name})`, () => {
    let app: TestApp;
    const admin = () => ({ 'x-gw-api-key': app.adminKey });
    const post = (path: string, body: unknown) => app.http.post(path).set(admin()).send(body as object);
    const put = (path: string, body: unknown) => app.http.put(path).set(admin()).send(body as object);

    before(async () => {
      app = await startTestApp({ engine });
    });
    after(async () => {
      await app.close();
    });

    test('partials nested two deep, sections, no HTML escaping, chat parameters on top', async () => {
      assert.equal((await post('/v1/prompts/partials', { name: 'r-sign', string: '-- {{>r-footer}}' })).status, 201);
      assert.equal((await post('/v1/prompts/partials', { name: 'r-footer', string: '{{company}} <support>' })).status, 201);
      const prompt = await post('/v1/prompts', {
        name: 'r-chat',
        model: 'gpt-4o-mini',
        parameters: { temperature: 0.1, max_completion_tokens: 50 },
        tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }],
        tool_choice: 'auto',
        string: [
          { role: 'system', content: 'You help {{company}} & friends.' },
          { role: 'user', content: [{ type: 'text', text: '{{#items}}<{{.}}>{{/items}}{{^items}}none{{/items}} {{>r-sign}}' }] },
        ],
      });
      assert.equal(prompt.status, 201, JSON.stringify(prompt.body));
      const rendered = await post(`/v1/prompts/${prompt.body.id}/render`, { variables: { company: 'Acme & Co', items: ['a', 'b'] }, temperature: 0.9, user: 'u1' });
      assert.equal(rendered.status, 200, JSON.stringify(rendered.body));
      assert.equal(rendered.body.success, true);
      assert.deepEqual(rendered.body.data.messages, [
        { role: 'system', content: 'You help Acme & Co & friends.' },
        { role: 'user', content: [{ type: 'text', text: '<a><b> -- Acme & Co <support>' }] },
      ]);
      assert.equal(rendered.body.data.model, 'gpt-4o-mini');
      assert.equal(rendered.body.data.temperature, 0.9, 'the caller\'s parameter wins');
      assert.equal(rendered.body.data.max_completion_tokens, 50);
      assert.equal(rendered.body.data.tool_choice, 'auto');
      assert.equal(rendered.body.data.tools[0].function.name, 'lookup');
      assert.equal(rendered.body.data.user, 'u1');
      assert.equal(rendered.body.data.variables, undefined);
    });

    test('id, id@3 and id@production render the version they name; edits show at once', async () => {
      const prompt = await post('/v1/prompts', { name: 'r-versions', string: 'one {{x}}', model: 'gpt-4o' });
      const id = prompt.body.id as string;
      await put(`/v1/prompts/${id}`, { patch: true, string: 'two {{x}}' });
      await put(`/v1/prompts/${id}`, { patch: true, string: 'three {{x}}' });
      const render = async (address: string) => (await post(`/v1/prompts/${address}/render`, { variables: { x: '!' } })).body.data?.messages[0].content;
      assert.equal(await render(id), 'one !');
      assert.equal(await render(`${id}@3`), 'three !');
      assert.equal(await render('r-versions@2'), 'two !');
      assert.equal((await post(`/v1/prompts/${id}@production/render`, { variables: { x: '!' } })).status, 404);
      await put(`/v1/prompts/${id}/versions/2`, { label_id: 'production' });
      assert.equal(await render(`${id}@production`), 'two !');
      // Resolved prompts are cached; every write invalidates them.
      await put(`/v1/prompts/${id}/makeDefault`, { version: 3 });
      assert.equal(await render(id), 'three !');
      await put(`/v1/prompts/${id}/versions/1`, { label_id: 'production' });
      assert.equal(await render(`${id}@production`), 'one !');
    });

    test('a missing variable, an unknown partial and a partial cycle are 400s naming the culprit', async () => {
      const missing = await post('/v1/prompts', { name: 'r-missing', model: 'gpt-4o', string: 'Dear {{user.name}}, {{#opt}}{{inner}}{{/opt}}{{>r-needs}}' });
      await post('/v1/prompts/partials', { name: 'r-needs', string: 'ticket {{ticket}}' });
      const noUser = await post(`/v1/prompts/${missing.body.id}/render`, { variables: { ticket: 1 } });
      assert.equal(noUser.status, 400);
      assert.equal(noUser.body.error.code, 'missing_variable');
      assert.equal(noUser.body.error.param, 'variables.user.name');
      assert.match(noUser.body.error.message, /user\.name/);
      // A variable read only inside a partial is needed too; one inside a section is not.
      const noTicket = await post(`/v1/prompts/${missing.body.id}/render`, { variables: { user: { name: 'Ann' } } });
      assert.equal(noTicket.body.error.param, 'variables.ticket');
      const ok = await post(`/v1/prompts/${missing.body.id}/render`, { variables: { user: { name: 'Ann' }, ticket: 7 } });
      assert.equal(ok.body.data.messages[0].content, 'Dear Ann, ticket 7');

      const unknown = await post('/v1/prompts', { name: 'r-unknown', model: 'gpt-4o', string: 'x {{>r-nowhere}}' });
      const unknownAnswer = await post(`/v1/prompts/${unknown.body.id}/render`, { variables: {} });
      assert.equal(unknownAnswer.status, 400);
      assert.equal(unknownAnswer.body.error.code, 'unknown_partial');
      assert.equal(unknownAnswer.body.error.param, 'partials.r-nowhere');

      await post('/v1/prompts/partials', { name: 'r-ping', string: 'ping {{>r-pong}}' });
      await post('/v1/prompts/partials', { name: 'r-pong', string: 'pong {{>r-ping}}' });
      const cyclic = await post('/v1/prompts', { name: 'r-cycle', model: 'gpt-4o', string: '{{>r-ping}}' });
      const cycle = await post(`/v1/prompts/${cyclic.body.id}/render`, { variables: {} });
      assert.equal(cycle.status, 400);
      assert.equal(cycle.body.error.code, 'partial_cycle');
      assert.match(cycle.body.error.message, /r-ping -> r-pong -> r-ping/);
      assert.equal(cycle.body.error.param, 'partials.r-ping');

      // A rendered request the chat schema refuses is a 400 naming the field.
      const noModel = await post('/v1/prompts', { name: 'r-nomodel', string: 'hello' });
      const noModelAnswer = await post(`/v1/prompts/${noModel.body.id}/render`, { variables: {} });
      assert.equal(noModelAnswer.status, 400);
      assert.equal(noModelAnswer.body.error.param, 'model');
      assert.equal((await post(`/v1/prompts/${noModel.body.id}/render`, { variables: {}, model: 'gpt-4o' })).status, 200);
      assert.equal((await post('/v1/prompts/nope/render', { variables: {} })).status, 404);
    });

    test('a raw template is sent as it is', async () => {
      const raw = await post('/v1/prompts', { name: 'r-raw', model: 'gpt-4o', string: 'keep {{this}}', is_raw_template: 1 });
      const answer = await post(`/v1/prompts/${raw.body.id}/render`, { variables: {} });
      assert.equal(answer.body.data.messages[0].content, 'keep {{this}}');
    });
  });
}
