/**
 * The A2A door with real parties: agents built with the official A2A SDK (the 1.x line, A2A 1.0, and
 * the 0.3 line) on loopback, registered through gw's documented routes, and each SDK line's client
 * talking to each agent through gw (bridged where the generations differ): card, send, stream,
 * get, cancel, resubscribe after a dropped stream, and the log rows.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fullEngines } from '../helpers/engines.js';
import { startFakeA2aAgent, type FakeA2aAgent } from '../helpers/fake-a2a-agents.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { AGENT_TOKEN, PUBLIC_URL, registerAgent, testClient, workspaceKey, type Seen } from './a2a-fixtures.js';

const VERSIONS = ['1.0', '0.3'] as const;

async function collect(events: AsyncGenerator<Seen>): Promise<Seen[]> {
  const seen: Seen[] = [];
  for await (const event of events) seen.push(event);
  return seen;
}

for (const engine of fullEngines()) {
  describe(`the A2A door (${engine.name})`, () => {
    let app: TestApp;
    let key: string;
    const agents = new Map<string, FakeA2aAgent>();

    before(async () => {
      app = await startTestApp({ engine, env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1', GW_PUBLIC_URL: PUBLIC_URL } });
      for (const version of VERSIONS) {
        const agent = await startFakeA2aAgent(version);
        agents.set(version, agent);
        await registerAgent(app, agent, `agent-${version.replace('.', '')}`, { allowed_skills: ['echo'] });
      }
      key = await workspaceKey(app);
    });
    after(async () => {
      await app.close();
      for (const agent of agents.values()) await agent.close();
    });

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
          const answer = await client.send('hello there', { skill: 'echo' });
          assert.equal(answer.kind, 'task');
          assert.equal(answer.state, 'completed');
          assert.deepEqual(answer.texts, ['echo hello there']);
          const fetched = await client.get(answer.taskId!);
          assert.equal(fetched.taskId, answer.taskId);
          assert.equal(fetched.contextId, answer.contextId);
          assert.equal(fetched.state, 'completed');
          const received = agent.requests.slice(seenBefore);
          assert.ok(received.length >= 2);
          for (const headers of received) {
            assert.equal(headers.authorization, `Bearer ${AGENT_TOKEN}`);
            assert.equal(headers['x-gw-api-key'], undefined);
            assert.doesNotMatch(JSON.stringify(headers), new RegExp(key));
          }
        });

        test(`${label}: stream events arrive as the agent sends them`, async () => {
          const client = await testClient(clientVersion, app, slug, { 'x-gw-api-key': key });
          const agent = agents.get(agentVersion)!;
          const events = client.stream('steps');
          const seen: Seen[] = [];
          // The agent waits for release() after "step 1": the first events must come through before it goes on.
          for await (const event of events) {
            seen.push(event);
            if (event.kind === 'status' && event.state === 'working') break;
          }
          assert.deepEqual(seen.map((event) => event.kind), ['task', 'status']);
          assert.deepEqual(seen[1]!.texts, ['step 1']);
          agent.release();
        });

        test(`${label}: a full stream ends with the completed task's artifact`, async () => {
          const client = await testClient(clientVersion, app, slug, { 'x-gw-api-key': key });
          const seen = await collect(client.stream('streamed hello'));
          assert.deepEqual(seen.map((event) => event.kind), ['task', 'artifact', 'status']);
          assert.deepEqual(seen[1]!.texts, ['echo streamed hello']);
          assert.equal(seen[2]!.state, 'completed');
          assert.ok(seen.every((event) => event.taskId === seen[0]!.taskId && event.contextId === seen[0]!.contextId));
        });

        test(`${label}: push-notification configs are set, read, listed and deleted on the agent`, async () => {
          const client = await testClient(clientVersion, app, slug, { 'x-gw-api-key': key });
          const task = await client.send('a task to watch');
          const hook = 'http://127.0.0.1:9/hook';
          const configs = await client.pushConfigs(task.taskId!, hook);
          const expected = { taskId: task.taskId, id: 'hook-1', url: hook, token: 'push-token' };
          assert.deepEqual(configs.set, expected);
          assert.deepEqual(configs.got, expected);
          assert.deepEqual(configs.listed, ['hook-1']);
          assert.deepEqual(configs.afterDelete, []);
        });

        test(`${label}: after a dropped stream, resubscribe follows the task and sees it cancelled`, async () => {
          const client = await testClient(clientVersion, app, slug, { 'x-gw-api-key': key });
          let taskId: string | undefined;
          for await (const event of client.stream('wait')) {
            taskId = event.taskId;
            if (event.kind === 'status' && event.state === 'working') break; // drops the stream
          }
          assert.ok(taskId);
          assert.equal((await client.get(taskId)).state, 'working');
          const resubscribed = client.resubscribe(taskId);
          const first = await resubscribed.next();
          assert.equal(first.done, false);
          const cancelled = await client.cancel(taskId);
          assert.equal(cancelled.taskId, taskId);
          const rest = [first.value as Seen, ...(await collect(resubscribed))];
          assert.equal(rest.at(-1)!.state, 'canceled');
          assert.equal((await client.get(taskId)).state, 'canceled');
        });
      }
    }
  });
}
