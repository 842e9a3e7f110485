/**
 * A Responses call as it goes to a provider that serves OpenAI's Responses API itself (used when the
 * call offers hosted tools, which only such a host runs: gateway/chat/responses-wire.ts), and its
 * answer as gw's Response. gw keeps the conversation, so the upstream gets it whole (the stored turns
 * of `previous_response_id` as items, then this input) with `store: false`; files uploaded to gw go
 * inline, gw's compaction items as their summary. The answer keeps the upstream's output items (hosted tools' calls included) and usage
 * under gw's response id and the request's echoed settings.
 */
import type { ChatMessage } from './chat-request.js';
import { summaryOfCompaction } from './compaction-item.js';
import type { LoadedFiles } from './input-files.js';
import type { CreateResponseRequest, InputItem, ResponseObject } from './wire.js';

type Json = Record<string, unknown>;
type ChatPart = { type: string; text?: string; image_url?: { url: string; detail?: string }; file?: { file_data?: string; filename?: string } };

function inputPart(part: ChatPart): Json {
  if (part.type === 'image_url') return { type: 'input_image', image_url: part.image_url?.url ?? '', detail: part.image_url?.detail ?? 'auto' };
  if (part.type === 'file') return { type: 'input_file', file_data: part.file?.file_data ?? '', ...(part.file?.filename ? { filename: part.file.filename } : {}) };
  return { type: 'input_text', text: part.text ?? '' };
}

/** Stored turns (chat messages) as Responses input items. */
export function historyItems(history: readonly ChatMessage[]): Json[] {
  const items: Json[] = [];
  for (const message of history) {
    const content = (message as { content?: string | ChatPart[] | null }).content;
    if (message.role === 'tool') {
      items.push({ type: 'function_call_output', call_id: message.tool_call_id, output: typeof content === 'string' ? content : (content ?? []).map((part) => part.text ?? '').join('') });
      continue;
    }
    if (message.role === 'assistant') {
      const text = typeof content === 'string' ? content : (content ?? []).map((part) => part.text ?? '').join('');
      if (text) items.push({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text, annotations: [] }] });
      for (const call of message.tool_calls ?? []) if (call.type === 'function') items.push({ type: 'function_call', call_id: call.id, name: call.function.name, arguments: call.function.arguments });
      continue;
    }
    items.push({ type: 'message', role: message.role, content: typeof content === 'string' ? content : (content ?? []).map(inputPart) });
  }
  return items;
}

/** The input with parts naming gw files carried inline, and gw's compactions as their summary (the upstream knows neither). */
function forUpstream(items: readonly InputItem[], files: LoadedFiles): InputItem[] {
  return items.map((item) => {
    if (item.type === 'compaction') {
      const summary = summaryOfCompaction((item as { encrypted_content?: unknown }).encrypted_content);
      return (summary === undefined ? item : { type: 'message', role: 'developer', content: `Summary of the conversation so far:\n${summary}` }) as InputItem;
    }
    const content = (item as { content?: unknown }).content;
    if (!Array.isArray(content)) return item;
    const parts = content.map((part: Json) => {
      const file = part.type === 'input_file' && typeof part.file_id === 'string' ? files.get(part.file_id) : undefined;
      if (!file) return part;
      const { file_id: _gwFile, ...rest } = part;
      const type = file.bytes.subarray(0, 5).toString('latin1') === '%PDF-' ? 'application/pdf' : 'text/plain';
      return { ...rest, filename: part.filename ?? file.filename, file_data: `data:${type};base64,${file.bytes.toString('base64')}` };
    });
    return { ...item, content: parts } as InputItem;
  });
}

export function nativeBody(request: CreateResponseRequest, history: readonly ChatMessage[], items: readonly InputItem[], files: LoadedFiles): Json {
  // gw's own fields stay here; gw keeps the conversation, so nothing is stored upstream.
  const { previous_response_id: _previous, store: _store, thinking: _thinking, mock_response: _mock, input: _input, ...rest } = request;
  return { ...rest, input: [...historyItems(history), ...forUpstream(items, files)], store: false };
}

/** The upstream's Response as gw's: its outcome, output and usage; gw's id and the request's settings. */
export function nativeResponseOf(pending: ResponseObject, upstream: Json): ResponseObject {
  const outcome = ['status', 'completed_at', 'incomplete_details', 'error', 'output', 'usage'] as const;
  const taken: Json = {};
  for (const key of outcome) if (upstream[key] !== undefined) taken[key] = upstream[key];
  return { ...pending, model: typeof upstream.model === 'string' ? upstream.model : pending.model, ...taken } as ResponseObject;
}
