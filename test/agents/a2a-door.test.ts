/**
 * The A2A door with real parties: agents built with the official A2A SDK (the 1.x line, A2A 1.0, and
 * the 0.3 line) on loopback, registered through gw's documented routes, and each SDK line's client
 * talking to each agent through gw (bridged where the generations differ): card, send, stream,
 * get, cancel, resubscribe after a dropped stream, and the log rows.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fullEngines } from '../helpers/engines.js';
import type { TestApp } from '../helpers/test-app.js';
import { assertAgentOwnCredential, assertFullStream, assertStepsArriveBeforeTheEnd, dropStreamMidTask, pushConfigRoundTrip, resubscribeThenCancel, sendThenGet } from '../helpers/a2a-scenarios.js';
import { PUBLIC_URL, startDoorWithAgents, testClient, type DoorWithAgents } from './a2a-fixtures.js';

const VERSIONS = ['1.0', '0.3'] as const;

for (const engine of fullEngines()) {
  describe(`the A2A door (${engine.name})`, () => {
    let door: DoorWithAgents;
    let app: TestApp;
    let key: string;
    let agents: DoorWithAgents['agents'];

    before(async () => {
      door = await startDoorWithAgents(engine, (version) => `agent-${version.replace('.', '')}`, { extra: { allowed_skills: ['echo'] } });
      ({ app, key, agents } = door);
    });
    after(() => door.close());

    test('the integration names its gateway URL; the card served there points at gw, with gw auth and the allowed skills', async () => {
      for (const version of VERSIONS) {
        const slug = `agent-${version.replace('.', '')}`;
        const integration = await app.http.get(`/v2/agent-integrations/${slug}`).set({ 'x-gw-api-key': app.adminKey });
        assert.equal(integration.body.gateway_url, `${PUBLIC_URL}/a2a/${slug}/`);
        const card = await app.http.get(`/a2a/${slug}/.well-known/agent-card.json`).set({ 'x-gw-api-key': key });
        assert.equal(card.status, 200, JSON.stringify(card.body));
        assert.equal(card.body.name, `${version} agent`);
        assert.equal(card.body.url, `${PUBLIC_URL}/a2a/${slug}/`);
        assert.deepEqual(
          card.body.supportedInterfaces.map((entry: { url: string; protocolBinding: string; protocolVersion: string }) => [entry.url, entry.protocolBinding, entry.protocolVersion]),
          [
            [`${PUBLIC_URL}/a2a/${slug}/`, 'JSONRPC', '1.0'],
            [`${PUBLIC_URL}/a2a/${slug}/`, 'JSONRPC', '0.3'],
            [`${PUBLIC_URL}/a2a/${slug}/`, 'HTTP+JSON', '1.0'],
            [`${PUBLIC_URL}/a2a/${slug}/`, 'HTTP+JSON', '0.3'],
          ],
        );
        // 0.3 readers find both transports among the additional interfaces.
        assert.deepEqual(card.body.additionalInterfaces, [
          { url: `${PUBLIC_URL}/a2a/${slug}/`, transport: 'JSONRPC' },
          { url: `${PUBLIC_URL}/a2a/${slug}/`, transport: 'HTTP+JSON' },
        ]);
        assert.deepEqual(Object.keys(card.body.securitySchemes), ['gwApiKey']);
        assert.deepEqual(card.body.skills.map((skill: { id: string }) => skill.id), ['echo']);
        assert.doesNotMatch(JSON.stringify(card.body), /127\.0\.0\.1/);
      }
    });

    for (const agentVersion of VERSIONS) {
      for (const clientVersion of VERSIONS) {
        const slug = `agent-${agentVersion.replace('.', '')}`;
        const label = `a ${clientVersion} client and a ${agentVersion} agent`;

        test(`${label}: send keeps the task's ids, and the agent sees its own credential, never the gw key`, async () => {
          const client = await testClient(clientVersion, app, slug, { 'x-gw-api-key': key });
          const agent = agents.get(agentVersion)!;
          const seenBefore = agent.requests.length;
          const { answer, fetched } = await sendThenGet(client, 'hello there', { skill: 'echo' });
          assert.equal(fetched.contextId, answer.contextId);
          const received = agent.requests.slice(seenBefore);
          assert.ok(received.length >= 2);
          assertAgentOwnCredential(received, key);
          for (const headers of received) assert.equal(headers['x-gw-api-key'], undefined);
        });

        test(`${label}: stream events arrive as the agent sends them`, async () => {
          const client = await testClient(clientVersion, app, slug, { 'x-gw-api-key': key });
          await assertStepsArriveBeforeTheEnd(client, agents.get(agentVersion)!);
        });

        test(`${label}: a full stream ends with the completed task's artifact`, async () => {
          const client = await testClient(clientVersion, app, slug, { 'x-gw-api-key': key });
          const seen = await assertFullStream(client, 'streamed hello');
          assert.ok(seen.every((event) => event.taskId === seen[0]!.taskId && event.contextId === seen[0]!.contextId));
        });

        test(`${label}: push-notification configs are set, read, listed and deleted on the agent`, async () => {
          const configs = await pushConfigRoundTrip(await testClient(clientVersion, app, slug, { 'x-gw-api-key': key }));
          assert.deepEqual(configs.set, configs.expected);
          assert.deepEqual(configs.got, configs.expected);
        });

        test(`${label}: after a dropped stream, resubscribe follows the task and sees it cancelled`, async () => {
          const client = await testClient(clientVersion, app, slug, { 'x-gw-api-key': key });
          const taskId = await dropStreamMidTask(client);
          assert.equal((await client.get(taskId)).state, 'working');
          await resubscribeThenCancel(client, taskId);
        });
      }
    }
  });
}
