/**
 * The chat-chunk to Responses-event translation on its own, for answers the fake upstreams do not
 * give: a refusal streamed by an OpenAI model, parallel tool calls interleaved by index, a stream
 * failing midway (its events valid in OpenAI's and the Open Responses shape), and a namespace's
 * and a custom tool's calls mapped back to the names the client offered.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SseWriter } from '../../gateway/chat/sse-writer.js';
import type { ChatCompletionChunk } from '../../gateway/providers/types.js';
import { ResponseEventStream } from '../../gateway/responses/event-stream.js';
import { pendingResponse } from '../../gateway/responses/response-object.js';
import { planTools } from '../../gateway/responses/tools.js';
import { openResponsesEventErrors } from './open-responses-schema.js';
import { responseSchemaErrors } from './response-schema.js';

type Written = { name: string; payload: Record<string, unknown> };
type Delta = ChatCompletionChunk['choices'][number]['delta'];

function recorder(): { writer: SseWriter; events: Written[] } {
  const events: Written[] = [];
  const writer = { event: async (name: string, payload: unknown) => void events.push({ name, payload: payload as Record<string, unknown> }) } as unknown as SseWriter;
  return { writer, events };
}

const chunk = (delta: Delta, finish: ChatCompletionChunk['choices'][number]['finish_reason'] = null): ChatCompletionChunk => ({
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'gpt-4o-2024',
  choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
});

const tools = planTools(undefined);
const frame = { id: 'resp_test', createdAt: 1_700_000_000_000, request: { model: 'gpt-4o', store: false }, store: false, tools };
const now = () => 1_700_000_001_000;

describe('Responses event stream', () => {
  it('streams a refusal as a refusal content part with refusal.delta and refusal.done', async () => {
    const { writer, events } = recorder();
    const stream = new ResponseEventStream(writer, pendingResponse(frame, 'gpt-4o'), tools, now);
    await stream.start();
    await stream.push(chunk({ role: 'assistant', content: '', refusal: null }));
    await stream.push(chunk({ refusal: "I can't " }));
    await stream.push(chunk({ refusal: 'help with that.' }));
    await stream.push(chunk({}, 'stop'));
    const response = await stream.closeOutput(undefined);
    await stream.finish(response);
    assert.deepEqual(
      events.map((event) => event.name),
      ['response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added', 'response.refusal.delta', 'response.refusal.delta', 'response.refusal.done', 'response.content_part.done', 'response.output_item.done', 'response.completed'],
    );
    assert.deepEqual(events[3]!.payload.part, { type: 'refusal', refusal: '' });
    assert.equal(events[6]!.payload.refusal, "I can't help with that.");
    assert.deepEqual(response.output[0], { type: 'message', id: (response.output[0] as { id: string }).id, status: 'completed', role: 'assistant', content: [{ type: 'refusal', refusal: "I can't help with that." }] });
    assert.equal(response.model, 'gpt-4o-2024');
    assert.equal(responseSchemaErrors(response), '');
    assert.deepEqual(events.map((event) => event.payload.sequence_number), events.map((_, index) => index));
  });

  it('keeps parallel tool calls apart by index, each its own function_call item', async () => {
    const { writer, events } = recorder();
    const stream = new ResponseEventStream(writer, pendingResponse(frame, 'gpt-4o'), tools, now);
    await stream.start();
    await stream.push(chunk({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '' } }] }));
    await stream.push(chunk({ tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'get_time', arguments: '{"city"' } }] }));
    await stream.push(chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":"Oslo"}' } }] }));
    await stream.push(chunk({ tool_calls: [{ index: 1, function: { arguments: ':"Rome"}' } }] }));
    await stream.push(chunk({}, 'tool_calls'));
    const response = await stream.closeOutput(undefined);
    const calls = response.output.map((item) => item as { type: string; call_id: string; name: string; arguments: string });
    assert.deepEqual(
      calls.map(({ type, call_id, name, arguments: args }) => [type, call_id, name, args]),
      [
        ['function_call', 'call_a', 'get_weather', '{"city":"Oslo"}'],
        ['function_call', 'call_b', 'get_time', '{"city":"Rome"}'],
      ],
    );
    const deltas = events.filter((event) => event.name === 'response.function_call_arguments.delta').map((event) => [event.payload.output_index, event.payload.delta]);
    assert.deepEqual(deltas, [
      [1, '{"city"'],
      [0, '{"city":"Oslo"}'],
      [1, ':"Rome"}'],
    ]);
    assert.equal(responseSchemaErrors(response), '');
  });

  it('ends a stream that fails midway with response.failed and an error event, both valid Open Responses events', async () => {
    const { writer, events } = recorder();
    const stream = new ResponseEventStream(writer, pendingResponse(frame, 'gpt-4o'), tools, now);
    await stream.start();
    await stream.push(chunk({ content: 'Half an ans' }));
    await stream.fail({ code: 'upstream_error', message: 'the upstream cut the stream' }, undefined);
    assert.deepEqual(events.slice(-2).map((event) => event.name), ['response.failed', 'error']);
    for (const event of events) assert.equal(openResponsesEventErrors(event.payload), '', event.name);
    const failed = events.at(-2)!.payload.response as { status: string; completed_at: unknown; error: unknown };
    assert.deepEqual([failed.status, failed.completed_at, failed.error], ['failed', null, { code: 'upstream_error', message: 'the upstream cut the stream' }]);
    // OpenAI's error event keeps its fields at the top, as the official client reads them.
    assert.deepEqual([events.at(-1)!.payload.code, events.at(-1)!.payload.message], ['upstream_error', 'the upstream cut the stream']);
  });

  it("maps a namespace's and a custom tool's streamed calls back to the names offered", async () => {
    const offered = planTools(
      [
        { type: 'namespace', name: 'crm', description: 'CRM', tools: [{ type: 'function', name: 'find', parameters: {} }] },
        { type: 'custom', name: 'apply_patch', description: 'Apply a patch' },
      ],
    );
    const { writer, events } = recorder();
    const stream = new ResponseEventStream(writer, pendingResponse({ ...frame, tools: offered }, 'gpt-4o'), offered, now);
    await stream.start();
    await stream.push(chunk({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'crm__find', arguments: '{"q":"ada"}' } }] }));
    await stream.push(chunk({ tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'apply_patch', arguments: '{"input":"*** Begin' } }] }));
    await stream.push(chunk({ tool_calls: [{ index: 1, function: { arguments: ' Patch"}' } }] }));
    await stream.push(chunk({}, 'tool_calls'));
    const response = await stream.closeOutput(undefined);
    const [find, patch] = response.output as Array<Record<string, unknown>>;
    assert.deepEqual([find!.type, find!.namespace, find!.name, find!.arguments], ['function_call', 'crm', 'find', '{"q":"ada"}']);
    assert.deepEqual([patch!.type, patch!.name, patch!.input, patch!.call_id], ['custom_tool_call', 'apply_patch', '*** Begin Patch', 'call_b']);
    const done = events.find((event) => event.name === 'response.custom_tool_call_input.done')!;
    assert.equal(done.payload.input, '*** Begin Patch');
    assert.equal(responseSchemaErrors(response), '');
  });
});
