/**
 * The Responses tools as the chat pipeline's function tools, and the way back. Every provider takes
 * function tools, so: a function stays a function; a custom tool (free-text input) becomes a function
 * with one string argument, `input`; a namespace's tools become functions named
 * `<namespace>__<name>`. Hosted tools (web_search, file_search, ...) run on the model's host, which
 * a chat call has not: they are left out of it and named (`omitted`).
 * The calls the model makes are mapped back to the names and item types the client offered.
 */
import { createHash } from 'node:crypto';
import type { ChatRequest } from '../providers/types.js';
import { newItemId } from './ids.js';
import type { CreateResponseRequest, CustomTool, CustomToolCallOutput, FunctionCallOutput, FunctionTool, ResponseTool } from './wire.js';

type ChatTool = NonNullable<ChatRequest['tools']>[number];
export type ChatToolCall = { id: string; type: 'function'; function: { name: string; arguments: string } };

/** What a chat function name stands for in the client's terms. */
export interface OfferedTool {
  name: string;
  namespace?: string;
  custom: boolean;
}

export interface ToolPlan {
  chatTools: ChatTool[];
  /** Hosted tool types offered, in the order offered (a target hosting them gets the call as it is). */
  hosted: string[];
  /** Hosted tool types left out of a chat call (neither hosted by the target nor run by gw). */
  omitted: string[];
  /** Where the first hosted tool is in `tools` (`tools[2]`), for a refusal to name. */
  firstHosted?: string;
  /** By chat function name. */
  offered: Map<string, OfferedTool>;
}

const CHAT_NAME_MAX = 64;

/** The chat name of a namespace's tool: `ns__name`, shortened with a hash when over 64 characters. */
export function chatToolName(name: string, namespace?: string): string {
  if (!namespace) return name;
  const joined = `${namespace}__${name}`;
  if (joined.length <= CHAT_NAME_MAX) return joined;
  const hash = createHash('sha256').update(joined).digest('hex').slice(0, 8);
  return `${joined.slice(0, CHAT_NAME_MAX - 9)}_${hash}`;
}

function customDescription(tool: CustomTool): string | undefined {
  const format = tool.format as { type?: string; syntax?: string; definition?: string } | null | undefined;
  const grammar = format?.type === 'grammar' && format.definition ? `The input follows this ${format.syntax ?? ''} grammar:\n${format.definition}` : undefined;
  const text = [tool.description, grammar].filter(Boolean).join('\n\n');
  return text || undefined;
}

function chatFunction(tool: FunctionTool | CustomTool, namespace?: string): ChatTool {
  const name = chatToolName(tool.name, namespace);
  if (tool.type === 'custom') {
    const description = customDescription(tool);
    const parameters = { type: 'object', properties: { input: { type: 'string', description: 'The tool input, as free text.' } }, required: ['input'], additionalProperties: false } as unknown as Record<string, never>;
    return { type: 'function', function: { name, ...(description ? { description } : {}), parameters } };
  }
  return {
    type: 'function',
    function: {
      name,
      ...(tool.description ? { description: tool.description } : {}),
      ...(tool.parameters ? { parameters: tool.parameters } : {}),
      ...(typeof tool.strict === 'boolean' ? { strict: tool.strict } : {}),
    },
  };
}

/** `gwRuns`: the hosted tool types gw runs itself on the chat path (gw-tools.ts): not omitted. */
export function planTools(tools: readonly ResponseTool[] | undefined, gwRuns: readonly string[] = []): ToolPlan {
  const plan: ToolPlan = { chatTools: [], hosted: [], omitted: [], offered: new Map() };
  const add = (tool: FunctionTool | CustomTool, namespace?: string) => {
    const chat = chatFunction(tool, namespace);
    plan.chatTools.push(chat);
    plan.offered.set(chat.function.name, { name: tool.name, ...(namespace ? { namespace } : {}), custom: tool.type === 'custom' });
  };
  (tools ?? []).forEach((tool, index) => {
    if (tool.type === 'function' || tool.type === 'custom') add(tool);
    else if (tool.type === 'namespace') for (const inner of tool.tools) add(inner, tool.name);
    else {
      if (!plan.hosted.includes(tool.type)) plan.hosted.push(tool.type);
      if (gwRuns.includes(tool.type)) return;
      plan.firstHosted ??= `tools[${index}]`;
      if (!plan.omitted.includes(tool.type)) plan.omitted.push(tool.type);
    }
  });
  return plan;
}

/** The tools as the response echoes them: function tools with every key OpenAI's schema requires. */
export function echoedTools(tools: readonly ResponseTool[] | undefined): ResponseTool[] {
  const full = (tool: FunctionTool) => ({ ...tool, description: tool.description ?? null, parameters: tool.parameters ?? null, strict: tool.strict ?? null });
  return (tools ?? []).map((tool) => {
    if (tool.type === 'function') return full(tool);
    if (tool.type === 'namespace') return { ...tool, tools: tool.tools.map((inner) => (inner.type === 'function' ? full(inner) : inner)) };
    return tool;
  });
}

type ToolChoice = NonNullable<CreateResponseRequest['tool_choice']>;

/** The chat tool_choice: a named function or custom tool by its chat name; allowed_tools by its mode; a hosted tool type as `auto`. */
export function chatToolChoice(choice: ToolChoice, plan: ToolPlan): ChatRequest['tool_choice'] {
  if (typeof choice === 'string') return choice;
  if ((choice.type === 'function' || choice.type === 'custom') && choice.name) {
    return { type: 'function', function: { name: chatToolName(choice.name, choice.namespace) } };
  }
  if (choice.type === 'allowed_tools') return choice.mode ?? 'auto';
  return plan.chatTools.length ? 'auto' : undefined;
}

/** A call the model made, as the client's output item: a function_call (with its namespace) or a custom_tool_call. */
export function callItemOf(call: ChatToolCall, plan: ToolPlan | undefined, status: 'completed' | 'in_progress' = 'completed'): FunctionCallOutput | CustomToolCallOutput {
  const offered = plan?.offered.get(call.function.name);
  const namespace = offered?.namespace ? { namespace: offered.namespace } : {};
  if (offered?.custom) {
    return { type: 'custom_tool_call', id: newItemId('ctc'), call_id: call.id, name: offered.name, ...namespace, input: customInput(call.function.arguments), status };
  }
  return { type: 'function_call', id: newItemId('fc'), call_id: call.id, name: offered?.name ?? call.function.name, ...namespace, arguments: call.function.arguments, status };
}

/** The `input` argument of a custom tool's function call (the raw arguments when the model sent no such JSON). */
export function customInput(args: string): string {
  try {
    const parsed = JSON.parse(args) as { input?: unknown };
    if (typeof parsed?.input === 'string') return parsed.input;
  } catch {
    // Not JSON yet, or not the shape asked for: the text as it came.
  }
  return args;
}

/** A function_call or custom_tool_call item (input or output) as the chat tool call it stands for. */
export function chatCallOf(item: { type: string; call_id: string; name: string; namespace?: string; arguments?: string; input?: string }): ChatToolCall {
  const name = chatToolName(item.name, item.namespace);
  const args = item.type === 'custom_tool_call' ? JSON.stringify({ input: item.input ?? '' }) : (item.arguments ?? '');
  return { id: item.call_id, type: 'function', function: { name, arguments: args } };
}
