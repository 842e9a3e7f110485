/**
 * file_search runs with the official `openai` client over fake OpenAI and Anthropic upstreams: the
 * fake model calls the file_search function gw offers, gw searches the vector store (ingested
 * through a bag-of-words embedder on loopback), records a file_search step with its results, feeds
 * the passages back, and the answer's source marker becomes a file_citation annotation.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI, { toFile } from 'openai';
import { fullEngines } from '../helpers/engines.js';
import { startFakeAnthropic, type FakeAnthropicReply } from '../helpers/fake-anthropic.js';
import { startFakeOpenAi, type FakeOpenAi } from '../helpers/fake-openai.js';
import { startFakeWordEmbedder } from '../helpers/fake-word-embedder.js';
import { ANSWER, BAKING, MARKER, createKitchenStore, embedderProvider } from '../helpers/kitchen-vector-store.js';
import type { RecordingServer } from '../helpers/recording-server.js';
import { ADMIN_KEY, startTestApp, type TestApp } from '../helpers/test-app.js';

const CONTENT_INCLUDE = 'step_details.tool_calls[*].file_search.results[*].content' as const;

const claudeText = (value: string): FakeAnthropicReply => ({ kind: 'message', message: { content: [{ type: 'text', text: value }], stop_reason: 'end_turn', usage: { input_tokens: 10, output_tokens: 4 } } });
const claudeSearch: FakeAnthropicReply = {
  kind: 'message',
  message: { content: [{ type: 'tool_use', id: 'toolu_search', name: 'file_search', input: { query: 'bake bread loaf oven' } }], stop_reason: 'tool_use', usage: { input_tokens: 20, output_tokens: 9 } },
};

for (const engine of fullEngines()) describe(`file_search runs (${engine.name})`, () => {
  let app: TestApp;
  let embedder: RecordingServer;
  let openai: FakeOpenAi;
  let anthropic: RecordingServer;
  let client: OpenAI;
  const claudeReplies: FakeAnthropicReply[] = [];
  let vectorStoreId: string;
  let bakingId: string;

  before(async () => {
    embedder = await startFakeWordEmbedder();
    openai = await startFakeOpenAi();
    anthropic = await startFakeAnthropic(() => claudeReplies.shift() ?? claudeText('Hello'));
    app = await startTestApp({ engine, env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1', GW_JOBS_POLL_MS: '100' } });
    for (const provider of [
      embedderProvider(embedder.url),
      { name: 'OpenAI', slug: 'oai', ai_provider_id: 'openai', key: 'sk-oai', configurations: { custom_host: openai.url } },
      { name: 'Claude', slug: 'claude', ai_provider_id: 'anthropic', key: 'sk-ant', configurations: { custom_host: anthropic.url } },
    ]) {
      const saved = await app.http.post('/v1/providers').set('x-gw-api-key', ADMIN_KEY).send(provider);
      assert.equal(saved.status, 201, JSON.stringify(saved.body));
    }
    client = new OpenAI({ apiKey: ADMIN_KEY, baseURL: `${app.url}/v1`, maxRetries: 0 });
    ({ bakingId, vectorStoreId } = await createKitchenStore(client));
  });
  after(async () => {
    await app?.close();
    await Promise.all([embedder?.close(), openai?.close(), anthropic?.close()]);
  });

  /** The run's steps: a completed file_search step ranking baking.txt first, then the cited answer. */
  async function assertSearchedAndCited(run: OpenAI.Beta.Threads.Run): Promise<void> {
    assert.equal(run.status, 'completed', JSON.stringify(run.last_error));
    const steps = await client.beta.threads.runs.steps.list(run.id, { thread_id: run.thread_id, order: 'asc' });
    assert.deepEqual(steps.data.map((step) => step.type), ['tool_calls', 'message_creation']);
    const details = steps.data[0]!.step_details as OpenAI.Beta.Threads.Runs.ToolCallsStepDetails;
    assert.equal(steps.data[0]!.status, 'completed');
    assert.equal(details.tool_calls.length, 1);
    const search = details.tool_calls[0] as OpenAI.Beta.Threads.Runs.FileSearchToolCall;
    assert.equal(search.type, 'file_search');
    assert.equal(search.file_search.ranking_options?.ranker, 'default_2024_08_21');
    const results = search.file_search.results!;
    assert.equal(results.length, 2);
    assert.equal(results[0]!.file_id, bakingId);
    assert.equal(results[0]!.file_name, 'baking.txt');
    assert.ok(results[0]!.score > results[1]!.score && results[0]!.score <= 1);
    assert.equal(results[0]!.content, undefined, 'no content unless include[] asks');
    const withContent = await client.beta.threads.runs.steps.retrieve(steps.data[0]!.id, { thread_id: run.thread_id, run_id: run.id, include: [CONTENT_INCLUDE] });
    const included = ((withContent.step_details as OpenAI.Beta.Threads.Runs.ToolCallsStepDetails).tool_calls[0] as OpenAI.Beta.Threads.Runs.FileSearchToolCall).file_search.results!;
    assert.deepEqual(included[0]!.content, [{ type: 'text', text: BAKING }]);
    const listedWithContent = await client.beta.threads.runs.steps.list(run.id, { thread_id: run.thread_id, order: 'asc', include: [CONTENT_INCLUDE] });
    assert.deepEqual((listedWithContent.data[0]!.step_details as { tool_calls: Array<{ file_search: { results: Array<{ content: unknown }> } }> }).tool_calls[0]!.file_search.results[0]!.content, [{ type: 'text', text: BAKING }]);

    const [answer] = (await client.beta.threads.messages.list(run.thread_id)).data;
    const text = (answer!.content[0] as OpenAI.Beta.Threads.TextContentBlock).text;
    assert.equal(text.value, ANSWER);
    const start = ANSWER.indexOf(MARKER);
    assert.deepEqual(text.annotations, [{ type: 'file_citation', text: MARKER, start_index: start, end_index: start + MARKER.length, file_citation: { file_id: bakingId } }]);
  }

  it('over OpenAI: the model calls file_search, gw searches the assistant\'s store, and the answer cites the file', async () => {
    const assistant = await client.beta.assistants.create({ model: '@oai/gpt-4o-mini', tools: [{ type: 'file_search' }], tool_resources: { file_search: { vector_store_ids: [vectorStoreId] } } });
    const before = openai.requests.length;
    // First turn: the fake calls the first tool it is offered (file_search); second turn: it answers with the marker.
    openai.next({ kind: 'reply' }, { kind: 'reply', content: ANSWER });
    const run = await client.beta.threads.createAndRunPoll({ assistant_id: assistant.id, thread: { messages: [{ role: 'user', content: 'How do I bake bread in an oven?' }] } }, { pollIntervalMs: 20 });
    const turns = openai.requests.slice(before).filter((request) => request.path.endsWith('/chat/completions'));
    assert.equal(turns.length, 2);
    const offered = turns[0]!.body.tools as Array<{ function: { name: string; parameters: { required: string[] } } }>;
    assert.deepEqual(offered.map((tool) => tool.function.name), ['file_search']);
    assert.deepEqual(offered[0]!.function.parameters.required, ['query']);
    const toolMessage = (turns[1]!.body.messages as Array<{ role: string; content: string }>).at(-1)!;
    assert.equal(toolMessage.role, 'tool');
    assert.ok(toolMessage.content.startsWith(`${MARKER}\n${BAKING}`), toolMessage.content);
    await assertSearchedAndCited(run);
  });

  it('over Anthropic: the thread\'s store is searched with the query the model wrote', async () => {
    const assistant = await client.beta.assistants.create({ model: '@claude/claude-sonnet-4-5', tools: [{ type: 'file_search' }] });
    claudeReplies.push(claudeSearch, claudeText(ANSWER));
    const before = embedder.received.length;
    const run = await client.beta.threads.createAndRunPoll(
      { assistant_id: assistant.id, thread: { messages: [{ role: 'user', content: 'Tell me something.' }], tool_resources: { file_search: { vector_store_ids: [vectorStoreId] } } } },
      { pollIntervalMs: 20 },
    );
    assert.deepEqual(embedder.received.slice(before).map((request) => request.body!.input), [['bake bread loaf oven']]);
    const sent = anthropic.received.at(-1)!.body as { messages: Array<{ role: string; content: Array<{ type: string; tool_use_id?: string; content?: unknown }> }> };
    const result = sent.messages.at(-1)!.content.find((block) => block.type === 'tool_result')!;
    assert.equal(result.tool_use_id, 'toolu_search');
    assert.match(JSON.stringify(result.content), /baking\.txt/);
    await assertSearchedAndCited(run);
  });

  it('streamed: the file_search step is created, completed with its results, then the answer streams and the run completes', async () => {
    const assistant = await client.beta.assistants.create({ model: '@oai/gpt-4o-mini', tools: [{ type: 'file_search' }], tool_resources: { file_search: { vector_store_ids: [vectorStoreId] } } });
    openai.next({ kind: 'reply' }, { kind: 'reply', content: ANSWER });
    const stream = await client.beta.threads.createAndRun({ assistant_id: assistant.id, thread: { messages: [{ role: 'user', content: 'How do I bake bread in an oven?' }] }, stream: true });
    const events: OpenAI.Beta.AssistantStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    const names = events.map((event) => event.event);
    assert.equal(names.at(-1), 'thread.run.completed');
    const stepDone = events.find((event) => event.event === 'thread.run.step.completed' && event.data.type === 'tool_calls')!.data as OpenAI.Beta.Threads.Runs.RunStep;
    const call = (stepDone.step_details as OpenAI.Beta.Threads.Runs.ToolCallsStepDetails).tool_calls[0] as OpenAI.Beta.Threads.Runs.FileSearchToolCall;
    assert.equal(call.type, 'file_search');
    assert.equal(call.file_search.results![0]!.file_id, bakingId);
    const stepCreated = names.indexOf('thread.run.step.created');
    assert.ok(stepCreated >= 0 && stepCreated < names.indexOf('thread.message.delta'), 'the search step comes before the answer');
    const delta = events.filter((event) => event.event === 'thread.message.delta').map((event) => ((event.data as OpenAI.Beta.Threads.MessageDeltaEvent).delta.content![0] as OpenAI.Beta.Threads.TextDeltaBlock).text!.value).join('');
    assert.equal(delta, ANSWER);
    const completed = events.find((event) => event.event === 'thread.message.completed')!.data as OpenAI.Beta.Threads.Message;
    assert.equal(((completed.content[0] as OpenAI.Beta.Threads.TextContentBlock).text.annotations[0] as OpenAI.Beta.Threads.FileCitationAnnotation).file_citation.file_id, bakingId);
  });

  it('inline vector_stores on the thread are created and ingested before the run searches them', async () => {
    const assistant = await client.beta.assistants.create({ model: '@oai/gpt-4o-mini', tools: [{ type: 'file_search' }] });
    openai.next({ kind: 'reply' }, { kind: 'reply', content: ANSWER });
    const run = await client.beta.threads.createAndRunPoll(
      {
        assistant_id: assistant.id,
        thread: {
          messages: [{ role: 'user', content: 'How do I bake bread in an oven?' }],
          tool_resources: { file_search: { vector_stores: [{ file_ids: [bakingId], metadata: { 'x-gw-embedding-model': '@embedder/text-embedding-3-small' } }] } },
        },
      },
      { pollIntervalMs: 20 },
    );
    const thread = await client.beta.threads.retrieve(run.thread_id);
    const ids = thread.tool_resources?.file_search?.vector_store_ids ?? [];
    assert.equal(ids.length, 1);
    assert.notEqual(ids[0], vectorStoreId);
    assert.deepEqual((await client.vectorStores.files.list(ids[0]!)).data.map((file) => [file.id, file.status]), [[bakingId, 'completed']]);
    assert.equal(run.status, 'completed', JSON.stringify(run.last_error));
    const [answer] = (await client.beta.threads.messages.list(run.thread_id)).data;
    assert.deepEqual((answer!.content[0] as OpenAI.Beta.Threads.TextContentBlock).text.annotations.map((annotation) => (annotation as OpenAI.Beta.Threads.FileCitationAnnotation).file_citation.file_id), [bakingId]);
  });

  it('message attachments with file_search join the thread\'s store (made with the thread\'s embedding model); code_interpreter ones stay with the message', async () => {
    const thread = await client.beta.threads.create({
      metadata: { 'x-gw-embedding-model': '@embedder/text-embedding-3-small' },
      messages: [{ role: 'user', content: 'Read this', attachments: [{ file_id: bakingId, tools: [{ type: 'file_search' }] }] }],
    });
    const ids = thread.tool_resources?.file_search?.vector_store_ids ?? [];
    assert.equal(ids.length, 1);
    const extra = (await client.files.create({ file: await toFile(Buffer.from('notes about rivers'), 'rivers.txt'), purpose: 'assistants' })).id;
    const message = await client.beta.threads.messages.create(thread.id, { role: 'user', content: 'And this', attachments: [{ file_id: extra, tools: [{ type: 'file_search' }] }] });
    assert.deepEqual(message.attachments, [{ file_id: extra, tools: [{ type: 'file_search' }] }]);
    const attached = await client.vectorStores.files.list(ids[0]!);
    assert.deepEqual(new Set(attached.data.map((file) => file.id)), new Set([bakingId, extra]));
    assert.deepEqual((await client.beta.threads.retrieve(thread.id)).tool_resources?.file_search?.vector_store_ids, ids);

    // A code_interpreter attachment is kept with its message (mounted in runs), not added to the store.
    const forCode = (await client.files.create({ file: await toFile(Buffer.from('1,2,3'), 'numbers.csv'), purpose: 'assistants' })).id;
    const codeMessage = await client.beta.threads.messages.create(thread.id, { role: 'user', content: 'x', attachments: [{ file_id: forCode, tools: [{ type: 'code_interpreter' }] }] });
    assert.deepEqual(codeMessage.attachments, [{ file_id: forCode, tools: [{ type: 'code_interpreter' }] }]);
    assert.equal((await client.vectorStores.files.list(ids[0]!)).data.some((file) => file.id === forCode), false);
    const noModel = await client.beta.threads.create({ messages: [{ role: 'user', content: 'x', attachments: [{ file_id: extra, tools: [{ type: 'file_search' }] }] }] }).then(
      () => assert.fail('expected 400'),
      (error: unknown) => error as InstanceType<typeof OpenAI.APIError>,
    );
    assert.equal(noModel.status, 400);
    assert.equal(noModel.param, 'metadata.x-gw-embedding-model');
    const unknownFile = await client.beta.threads.create({ tool_resources: { file_search: { vector_stores: [{ file_ids: ['file-nope'], metadata: { 'x-gw-embedding-model': '@embedder/m' } }] } } }).then(
      () => assert.fail('expected 404'),
      (error: unknown) => error as InstanceType<typeof OpenAI.APIError>,
    );
    assert.equal(unknownFile.status, 404);
  });
});
