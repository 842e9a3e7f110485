/**
 * The Messages door's translation pieces on their own: a chat answer with reasoning (DeepSeek-style
 * reasoning_content) as thinking blocks, JSON and streamed; usage split back into Anthropic's
 * input and cache counts; what the chat form cannot say noted (so non-Anthropic targets refuse it).
 */
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { SseWriter } from '../../gateway/chat/sse-writer.js';
import { chatRequestOf } from '../../gateway/messages/chat-request.js';
import { MessageEventStream } from '../../gateway/messages/event-stream.js';
import { messageOf } from '../../gateway/messages/message-object.js';
import type { ChatCompletionChunk } from '../../gateway/providers/types.js';
import type { MessagesRequest } from '../../gateway/messages/wire.js';

function fakeResponse(): { res: ServerResponse; text: () => string } {
  const sink = new PassThrough();
  let text = '';
  sink.on('data', (part: Buffer) => (text += part.toString()));
  const res = Object.assign(sink, { setHeader() {}, writeHead() {}, flushHeaders() {}, destroyed: false }) as unknown as ServerResponse;
  return { res, text: () => text };
}

const chunk = (delta: Record<string, unknown>, finish: string | null = null): ChatCompletionChunk =>
  ({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'deepseek-reasoner', choices: [{ index: 0, delta, finish_reason: finish }] }) as ChatCompletionChunk;

describe('Messages translation', () => {
  it('answers reasoning_content as a thinking block before the text', () => {
    const message = messageOf({
      id: 'chatcmpl-9',
      object: 'chat.completion',
      created: 1,
      model: 'deepseek-reasoner',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Four.', refusal: null, reasoning_content: 'Two and two.' } as never, finish_reason: 'length', logprobs: null }],
      usage: { prompt_tokens: 100, completion_tokens: 5, total_tokens: 105, prompt_tokens_details: { cached_tokens: 60, cache_creation_tokens: 10 } as never },
    });
    assert.equal(message.id, 'msg_9');
    assert.deepEqual(message.content, [
      { type: 'thinking', thinking: 'Two and two.', signature: '' },
      { type: 'text', text: 'Four.' },
    ]);
    assert.equal(message.stop_reason, 'max_tokens');
    assert.deepEqual(message.usage, { input_tokens: 30, output_tokens: 5, cache_creation_input_tokens: 10, cache_read_input_tokens: 60 });
  });

  it('streams thinking, text and two tool calls as separate blocks in order', async () => {
    const { res, text } = fakeResponse();
    const events = new MessageEventStream(new SseWriter(res), 'deepseek-reasoner');
    for (const piece of [
      chunk({ role: 'assistant', content: '' }),
      chunk({ reasoning_content: 'Think' }),
      chunk({ reasoning_content: 'ing.' }),
      chunk({ content: 'Calling.' }),
      chunk({ tool_calls: [{ index: 0, id: 'c1', type: 'function', function: { name: 'a', arguments: '{"x"' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: ':1}' } }] }),
      chunk({ tool_calls: [{ index: 1, id: 'c2', type: 'function', function: { name: 'b', arguments: '{}' } }] }),
      chunk({}, 'tool_calls'),
    ])
      await events.push(piece);
    await events.finish({ prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 });
    const parsed = text()
      .split('\n\n')
      .filter(Boolean)
      .map((frame) => JSON.parse(frame.split('\n')[1]!.slice(6)) as Record<string, unknown>);
    const summary = parsed.map((event) => {
      if (event.type === 'content_block_start') return `start ${event.index} ${(event.content_block as { type: string }).type}`;
      if (event.type === 'content_block_delta') return `delta ${event.index} ${(event.delta as { type: string }).type}`;
      if (event.type === 'content_block_stop') return `stop ${event.index}`;
      return String(event.type);
    });
    assert.deepEqual(summary, [
      'message_start',
      'ping',
      'start 0 thinking',
      'delta 0 thinking_delta',
      'delta 0 thinking_delta',
      'stop 0',
      'start 1 text',
      'delta 1 text_delta',
      'stop 1',
      'start 2 tool_use',
      'delta 2 input_json_delta',
      'delta 2 input_json_delta',
      'stop 2',
      'start 3 tool_use',
      'delta 3 input_json_delta',
      'stop 3',
      'message_delta',
      'message_stop',
    ]);
    assert.deepEqual(parsed.at(-2), { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { input_tokens: 7, output_tokens: 3, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 } });
  });

  it('maps thinking budgets and efforts to reasoning_effort', () => {
    const effort = (extra: Record<string, unknown>) => chatRequestOf({ model: 'm', max_tokens: 10, messages: [], ...extra } as MessagesRequest).chat.reasoning_effort;
    assert.equal(effort({ thinking: { type: 'enabled', budget_tokens: 1024 } }), 'low');
    assert.equal(effort({ thinking: { type: 'enabled', budget_tokens: 10000 } }), 'medium');
    assert.equal(effort({ thinking: { type: 'enabled', budget_tokens: 32000 } }), 'high');
    assert.equal(effort({ thinking: { type: 'adaptive' }, output_config: { effort: 'low' } }), 'low');
    assert.equal(effort({ thinking: { type: 'adaptive' }, output_config: { effort: 'max' } }), 'high');
    assert.equal(effort({ thinking: { type: 'disabled' } }), undefined);
    assert.equal(effort({}), undefined);
  });

  it('keeps a mid-conversation system turn in place and notes what chat cannot say', () => {
    const { chat, untranslatable } = chatRequestOf({
      model: 'm',
      max_tokens: 10,
      top_k: 5,
      messages: [
        { role: 'user', content: 'Hi' },
        { role: 'system', content: [{ type: 'text', text: 'Now be terse.' }] },
        { role: 'user', content: [{ type: 'search_result', source: 'x', title: 't', content: [] }] },
      ],
    } as MessagesRequest);
    assert.deepEqual(chat.messages, [
      { role: 'user', content: 'Hi' },
      { role: 'system', content: 'Now be terse.' },
    ]);
    assert.deepEqual(untranslatable, [
      { param: 'top_k', what: 'top_k' },
      { param: 'messages[2].content[0].type', what: 'a search_result content block' },
    ]);
  });

  it('offers deferred tools only once a tool search referenced them', () => {
    const tool = (name: string, deferred = false) => ({ name, input_schema: { type: 'object' }, ...(deferred ? { defer_loading: true } : {}) });
    const request = (messages: unknown[]) =>
      chatRequestOf({ model: 'm', max_tokens: 10, tools: [tool('ToolSearch'), tool('mcp__gw__add', true), tool('mcp__gw__echo', true)], messages } as MessagesRequest).chat;
    assert.deepEqual(request([{ role: 'user', content: 'add' }]).tools?.map((t) => t.function.name), ['ToolSearch']);
    const after = request([
      { role: 'user', content: 'add' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'ToolSearch', input: { query: 'add' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: [{ type: 'tool_reference', tool_name: 'mcp__gw__add' }] }] },
    ]);
    assert.deepEqual(after.tools?.map((t) => t.function.name), ['ToolSearch', 'mcp__gw__add']);
    assert.deepEqual(after.messages.at(-1), { role: 'tool', tool_call_id: 't1', content: 'Tool mcp__gw__add loaded.' });
  });
});
