/**
 * The fake OpenAI upstream's own Responses API (`POST /responses`), for calls gw forwards as they
 * came (Responses calls offering hosted tools). It answers as the chat endpoint decides (the same
 * behaviours and script, shown the input as chat messages): a function call or text; when the
 * request offers web_search, a completed `web_search_call` item comes first, as OpenAI's host runs
 * the search itself. JSON, or the Responses event stream when `stream: true`.
 */
import type { ServerResponse } from 'node:http';

type Json = Record<string, unknown>;
type Item = { type?: string; role?: string; content?: unknown; call_id?: string; name?: string; arguments?: string; output?: unknown };

export const FAKE_RESPONSES_USAGE = { input_tokens: 21, input_tokens_details: { cached_tokens: 0 }, output_tokens: 9, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 30 };

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  return Array.isArray(content) ? content.map((part: { text?: string }) => part.text ?? '').join('') : '';
}

/** The Responses body as the chat endpoint's behaviours read one: messages and function tools. */
export function chatViewOf(body: Json): Json {
  const input: Item[] = typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : ((body.input ?? []) as Item[]);
  const messages = input.flatMap((item): Json[] => {
    if (item.type === 'function_call') return [{ role: 'assistant', content: null, tool_calls: [{ id: item.call_id, type: 'function', function: { name: item.name, arguments: item.arguments } }] }];
    if (item.type === 'function_call_output') return [{ role: 'tool', tool_call_id: item.call_id, content: textOf(item.output) }];
    if (item.role) return [{ role: item.role, content: textOf(item.content) }];
    return [];
  });
  const tools = ((body.tools ?? []) as Array<{ type: string; name?: string }>).filter((tool) => tool.type === 'function').map((tool) => ({ type: 'function', function: { name: tool.name } }));
  return { ...body, messages, tools };
}

export function answerResponses(res: ServerResponse, body: Json, answer: { text: string; toolCall?: { name: string; arguments: string } }): void {
  const searched = ((body.tools ?? []) as Array<{ type: string }>).some((tool) => tool.type.startsWith('web_search'));
  const output: Json[] = [];
  if (searched) output.push({ type: 'web_search_call', id: 'ws_fake_1', status: 'completed', action: { type: 'search', query: 'fake search' } });
  if (answer.toolCall) output.push({ type: 'function_call', id: 'fc_fake_1', call_id: 'call_fake_1', name: answer.toolCall.name, arguments: answer.toolCall.arguments, status: 'completed' });
  else output.push({ type: 'message', id: 'msg_fake_1', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: answer.text, annotations: [] }] });
  const base = {
    id: 'resp_fake_1',
    object: 'response',
    created_at: 1_700_000_000,
    model: String(body.model),
    error: null,
    incomplete_details: null,
    instructions: body.instructions ?? null,
    tools: body.tools ?? [],
    tool_choice: body.tool_choice ?? 'auto',
    parallel_tool_calls: true,
    store: false,
    metadata: {},
  };
  const done = { ...base, status: 'completed', completed_at: 1_700_000_001, output, usage: FAKE_RESPONSES_USAGE };
  if (body.stream !== true) {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(done));
    return;
  }
  const events: Json[] = [];
  const started = { ...base, status: 'in_progress', completed_at: null, output: [], usage: null };
  events.push({ type: 'response.created', response: started }, { type: 'response.in_progress', response: started });
  output.forEach((item, index) => {
    events.push({ type: 'response.output_item.added', output_index: index, item: { ...item, ...(item.type === 'message' ? { content: [], status: 'in_progress' } : {}) } });
    if (item.type === 'message') {
      const at = { item_id: item.id, output_index: index, content_index: 0 };
      events.push({ type: 'response.content_part.added', ...at, part: { type: 'output_text', text: '', annotations: [] } });
      events.push({ type: 'response.output_text.delta', ...at, delta: answer.text, logprobs: [] });
      events.push({ type: 'response.output_text.done', ...at, text: answer.text, logprobs: [] });
      events.push({ type: 'response.content_part.done', ...at, part: { type: 'output_text', text: answer.text, annotations: [] } });
    }
    if (item.type === 'function_call') events.push({ type: 'response.function_call_arguments.done', item_id: item.id, output_index: index, name: item.name, arguments: item.arguments });
    events.push({ type: 'response.output_item.done', output_index: index, item });
  });
  events.push({ type: 'response.completed', response: done });
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  events.forEach((event, sequence) => res.write(`event: ${String(event.type)}\ndata: ${JSON.stringify({ ...event, sequence_number: sequence })}\n\n`));
  res.end();
}
