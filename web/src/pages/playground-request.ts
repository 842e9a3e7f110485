/** What the playground sends: chat parameters from its fields, and each column's request. */
import type { AssistantAnswer, ChatTarget } from '../api/chat-stream';
import { parseJson, schemaProblem, validatorFor } from '../api/spec-validation';
import type { ChatMessage, ToolCall } from '../api/types';

/** The parameter fields as typed (empty: not sent). */
export interface Params {
  temperature: string;
  top_p: string;
  maxTokens: string;
  maxTokensField: 'max_completion_tokens' | 'max_tokens';
  /** One stop sequence a line (up to four). */
  stop: string;
  seed: string;
  responseFormat: 'text' | 'json_object';
  /** Function tools as a JSON list. */
  tools: string;
  toolChoice: '' | 'auto' | 'none' | 'required';
  stream: boolean;
  mock: string;
}

export const DEFAULT_PARAMS: Params = { temperature: '', top_p: '', maxTokens: '', maxTokensField: 'max_completion_tokens', stop: '', seed: '', responseFormat: 'text', tools: '', toolChoice: '', stream: true, mock: '' };

/** Where a column sends: `provider:<slug>`, `config:<slug>` or '' (the model's `@slug/`, or a prompt's own provider). */
export interface Choice {
  route: string;
  model: string;
}

export type Result<T> = { value: T } | { problem: string };

function number(name: string, text: string): Result<number | undefined> {
  if (!text.trim()) return { value: undefined };
  const value = Number(text);
  return Number.isFinite(value) ? { value } : { problem: `${name} is not a number` };
}

/** The chat parameters of the body (only those set), or why they cannot be sent. */
export function paramsBody(params: Params): Result<Record<string, unknown>> {
  const body: Record<string, unknown> = {};
  for (const [name, text] of [
    ['temperature', params.temperature],
    ['top_p', params.top_p],
    [params.maxTokensField, params.maxTokens],
    ['seed', params.seed],
  ] as const) {
    const parsed = number(name, text);
    if ('problem' in parsed) return parsed;
    if (parsed.value !== undefined) body[name] = parsed.value;
  }
  const stop = params.stop.split('\n').filter((line) => line !== '');
  if (stop.length) body.stop = stop;
  if (params.responseFormat === 'json_object') body.response_format = { type: 'json_object' };
  if (params.tools.trim()) {
    const tools = parseJson(params.tools);
    if ('problem' in tools) return { problem: `tools: ${tools.problem}` };
    body.tools = tools.value;
    if (params.toolChoice) body.tool_choice = params.toolChoice;
  }
  if (params.mock) body.mock_response = params.mock;
  // The spec's own chat schema names a wrong value (a range, a tool without a name) before gw sees it.
  const problem = schemaProblem({ model: 'm', messages: [{ role: 'user', content: '.' }], ...body }, validatorFor('ChatCompletionRequest'));
  return problem ? { problem } : { value: body };
}

function routeHeaders(route: string): Record<string, string> {
  if (route.startsWith('provider:')) return { 'x-gw-provider': `@${route.slice('provider:'.length)}` };
  if (route.startsWith('config:')) return { 'x-gw-config': route.slice('config:'.length) };
  return {};
}

/** A chat request of the written conversation, through the column's provider or config. */
export function chatTarget(choice: Choice, system: string, messages: ChatMessage[], params: Record<string, unknown>): Result<ChatTarget> {
  if (!choice.model.trim()) return { problem: 'Choose or type a model' };
  if (!choice.route && !choice.model.startsWith('@')) return { problem: `${choice.model}: choose a provider or a config, or a model as @slug/model` };
  const all: ChatMessage[] = system.trim() ? [{ role: 'system', content: system }, ...messages] : messages;
  return { value: { path: '/v1/chat/completions', headers: routeHeaders(choice.route), body: { model: choice.model.trim(), messages: all, ...params } } };
}

/**
 * A prompt's completion with its variables. `messages` (the rendered prompt and the turns after
 * it) replace the template's only once the conversation goes on past the prompt itself.
 */
export function promptTarget(address: string, choice: Choice, variables: Record<string, unknown>, messages: ChatMessage[] | undefined, params: Record<string, unknown>): ChatTarget {
  const body: Record<string, unknown> = { variables, ...params };
  if (choice.model.trim()) body.model = choice.model.trim();
  if (messages) body.messages = messages;
  return { path: `/v1/prompts/${encodeURIComponent(address)}/completions`, headers: routeHeaders(choice.route), body };
}

/** The answer as the assistant message the next turn sends back. */
export function answerMessage(answer: AssistantAnswer): ChatMessage {
  return answer.tool_calls.length ? { role: 'assistant', content: answer.content || null, tool_calls: answer.tool_calls } : { role: 'assistant', content: answer.content };
}

/** The tool calls of the conversation's last message that no tool message has answered yet. */
export function pendingToolCalls(thread: ChatMessage[]): ToolCall[] {
  const last = thread.at(-1);
  return last?.role === 'assistant' ? (last.tool_calls ?? []) : [];
}

/** A message's text as shown (parts joined). */
export function textOf(message: ChatMessage): string {
  const content = (message as { content?: unknown }).content;
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part: { text?: string; refusal?: string }) => part.text ?? part.refusal ?? '').join('');
  return '';
}
