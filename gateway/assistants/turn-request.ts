/**
 * The chat request of one run turn: the run's instructions as the system message, the thread's
 * messages (cut by truncation_strategy), then the run's own exchange so far (assistant tool
 * calls and the submitted outputs), with the run's tools and sampling settings.
 */
import type { ChatRequest } from '../providers/types.js';
import { CODE_INTERPRETER_FUNCTION, codeInterpreterFunction, hasCodeInterpreter } from './code-interpreter.js';
import { FILE_SEARCH_FUNCTION, fileSearchFunction, fileSearchSettings, MAX_SEARCHES_PER_RUN } from './file-search.js';
import type { MessageObject, RunObject, RunUsage } from './wire.js';

type ChatMessage = ChatRequest['messages'][number];

function chatMessageOf(message: MessageObject): ChatMessage {
  const parts = message.content as Array<{ type: string; text?: { value: string }; image_url?: { url: string; detail?: string } }>;
  const text = parts.filter((part) => part.type === 'text').map((part) => part.text!.value).join('\n');
  if (message.role === 'assistant') return { role: 'assistant', content: text };
  if (parts.every((part) => part.type === 'text')) return { role: 'user', content: text };
  return {
    role: 'user',
    content: parts.map((part) =>
      part.type === 'image_url' ? { type: 'image_url' as const, image_url: part.image_url as { url: string } } : { type: 'text' as const, text: part.text?.value ?? '' },
    ),
  } as ChatMessage;
}

export function turnRequest(
  run: RunObject,
  threadMessages: readonly MessageObject[],
  transcript: readonly Record<string, unknown>[],
  usage: RunUsage,
  searches = 0,
  code: { calls: number; max: number } = { calls: 0, max: 0 },
): ChatRequest {
  // This run's own messages are in the transcript already (with their tool calls).
  let history = threadMessages.filter((message) => message.run_id !== run.id);
  const truncation = run.truncation_strategy;
  if (truncation?.type === 'last_messages' && typeof truncation.last_messages === 'number') history = history.slice(-truncation.last_messages);
  const messages: ChatMessage[] = [];
  if (run.instructions) messages.push({ role: 'system', content: run.instructions });
  messages.push(...history.map(chatMessageOf), ...(transcript as unknown as ChatMessage[]));
  const request: ChatRequest = { model: run.model, messages, stream: true, stream_options: { include_usage: true } };
  const functions: NonNullable<ChatRequest['tools']> = run.tools
    .filter((tool) => tool.type === 'function')
    .map((tool) => ({ type: 'function' as const, function: (tool as { function: { name: string } }).function }));
  // file_search is a function gw answers itself (file-search.ts), offered until the run has searched enough.
  const searching = fileSearchSettings(run) !== undefined && searches < MAX_SEARCHES_PER_RUN;
  if (searching) functions.push(fileSearchFunction as unknown as (typeof functions)[number]);
  // code_interpreter likewise (code-interpreter.ts), until the run's calls reach GW_CODE_INTERPRETER_MAX_CALLS.
  const coding = hasCodeInterpreter(run) && code.calls < code.max;
  if (coding) functions.push(codeInterpreterFunction as unknown as (typeof functions)[number]);
  if (functions.length) {
    request.tools = functions;
    const choice = run.tool_choice as string | { type: string; function?: { name?: string } } | null | undefined;
    if (choice !== null && choice !== undefined) {
      const gwTool: Record<string, string> = { file_search: FILE_SEARCH_FUNCTION, code_interpreter: CODE_INTERPRETER_FUNCTION };
      const named = typeof choice === 'object' ? (gwTool[choice.type] ?? choice.function?.name ?? '') : undefined;
      // A named file_search or code_interpreter choice holds for the first call only: then the model answers.
      if ((named === FILE_SEARCH_FUNCTION && searches > 0) || (named === CODE_INTERPRETER_FUNCTION && code.calls > 0)) request.tool_choice = 'auto';
      else if (named === CODE_INTERPRETER_FUNCTION && !coding) request.tool_choice = 'auto';
      else request.tool_choice = (named === undefined ? choice : { type: 'function', function: { name: named } }) as ChatRequest['tool_choice'];
    }
    request.parallel_tool_calls = run.parallel_tool_calls;
  }
  if (typeof run.temperature === 'number') request.temperature = run.temperature;
  if (typeof run.top_p === 'number') request.top_p = run.top_p;
  if (typeof run.max_completion_tokens === 'number') request.max_completion_tokens = Math.max(1, run.max_completion_tokens - usage.completion_tokens);
  if (run.response_format && typeof run.response_format === 'object') request.response_format = run.response_format;
  return request;
}
