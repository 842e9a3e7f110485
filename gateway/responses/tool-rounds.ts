/**
 * The rounds of one Responses call on the chat path when gw runs hosted tools (gw-tools.ts): the
 * model answers, gw runs the calls it made to gw's tools, hands it their outputs and asks again,
 * until it answers without such calls, calls a client's function, or waits for an approval. Each
 * round is one pipeline call (its own limits, guardrails, cost and log row); the Response's usage
 * is their sum. After GW_RESPONSES_MAX_TOOL_ROUNDS rounds the model is asked once more without
 * gw's tools, so it answers.
 */
import type { ChatRequest, Usage } from '../providers/types.js';
import type { ChatMessage } from './chat-request.js';
import { approvedCallId, type GwToolRun, type GwTools } from './gw-tools.js';
import type { ChatToolCall } from './tools.js';
import type { InputItem, OutputItem } from './wire.js';

function sum(a: number | undefined, b: number | undefined): number {
  return (a ?? 0) + (b ?? 0);
}

export function addUsage(total: Usage | undefined, more: Usage | undefined): Usage | undefined {
  if (!more) return total;
  if (!total) return more;
  return {
    prompt_tokens: sum(total.prompt_tokens, more.prompt_tokens),
    completion_tokens: sum(total.completion_tokens, more.completion_tokens),
    total_tokens: sum(total.total_tokens, more.total_tokens),
    prompt_tokens_details: { cached_tokens: sum(total.prompt_tokens_details?.cached_tokens, more.prompt_tokens_details?.cached_tokens) },
    completion_tokens_details: { reasoning_tokens: sum(total.completion_tokens_details?.reasoning_tokens, more.completion_tokens_details?.reasoning_tokens) },
  };
}

export class ToolRounds {
  /** The turns of the rounds before the last, as chat: assistant calls and gw's tool outputs. */
  readonly messages: ChatMessage[] = [];
  usage: Usage | undefined;
  private count = 0;
  /** The round being asked (0 first), for its log row. */
  current = 0;
  /** Set when the last round's assistant turn is in `messages` already (it called a client's function or awaits an approval). */
  replyKept = false;

  constructor(
    readonly gw: GwTools,
    private readonly maxRounds: number,
  ) {}

  /** The chat request of the next round: the conversation so far; on the last round, without gw's tools. */
  request(chat: ChatRequest): ChatRequest {
    this.current = this.count;
    const next: ChatRequest = { ...chat, messages: [...chat.messages, ...this.messages] };
    if (this.count < this.maxRounds) return next;
    const tools = (chat.tools ?? []).filter((tool) => !this.gw.runs(tool.function.name));
    if (tools.length) return { ...next, tools };
    const { tools: _tools, tool_choice: _choice, parallel_tool_calls: _parallel, ...rest } = next;
    return rest;
  }

  /**
   * After a round's answer: runs the calls to gw's tools (each told to `onRun` as it ends) and says
   * whether to ask the model again. A round with no such call is the last.
   */
  async afterRound(text: string | null, calls: readonly ChatToolCall[], onRun: (run: GwToolRun) => Promise<void>): Promise<boolean> {
    this.count++;
    const gwCalls = calls.filter((call) => this.gw.runs(call.function.name));
    if (gwCalls.length === 0) return false;
    this.messages.push({ role: 'assistant', content: text || null, tool_calls: [...calls] });
    let stop = calls.length > gwCalls.length;
    for (const call of gwCalls) {
      const run = await this.gw.run(call);
      await onRun(run);
      if (run.output === undefined) stop = true;
      else this.messages.push({ role: 'tool', tool_call_id: call.id, content: run.output });
    }
    this.replyKept = stop;
    return !stop;
  }

  /**
   * The client's `mcp_approval_response` items: each names a call the conversation holds without
   * an answer; it is run (approved) or declined, before the model is asked.
   */
  async answerApprovals(conversation: readonly ChatMessage[], items: readonly InputItem[], onRun: (run: GwToolRun) => Promise<void>): Promise<void> {
    for (const item of items as Array<{ type?: string; approval_request_id?: string; approve?: boolean; reason?: string | null }>) {
      if (item.type !== 'mcp_approval_response' || !item.approval_request_id) continue;
      const callId = approvedCallId(item.approval_request_id);
      const call = conversation.flatMap((message) => (message.role === 'assistant' ? ((message.tool_calls ?? []) as ChatToolCall[]) : [])).find((candidate) => candidate.id === callId);
      const answered = conversation.some((message) => message.role === 'tool' && message.tool_call_id === callId);
      if (!call || answered) continue;
      const outcome = await this.gw.answerApproval(call, item.approval_request_id, item.approve === true, item.reason);
      if ('item' in outcome) await onRun(outcome);
      this.messages.push({ role: 'tool', tool_call_id: call.id, content: outcome.output ?? '' });
    }
  }
}

/**
 * Calls to gw's tools the conversation left waiting for an approval the client did not give (it
 * went on without an `mcp_approval_response` for them) get an answer after their assistant turn,
 * as providers want every call answered.
 */
export function settleUnapproved(conversation: ChatMessage[], items: readonly InputItem[], gw: GwTools): void {
  const answered = new Set(conversation.flatMap((message) => (message.role === 'tool' ? [message.tool_call_id] : [])));
  for (const item of items as Array<{ type?: string; approval_request_id?: string }>) {
    if (item.type === 'mcp_approval_response' && item.approval_request_id) answered.add(approvedCallId(item.approval_request_id) ?? item.approval_request_id);
  }
  for (let index = conversation.length - 1; index >= 0; index--) {
    const message = conversation[index]!;
    if (message.role !== 'assistant') continue;
    const waiting = ((message.tool_calls ?? []) as ChatToolCall[]).filter((call) => gw.runs(call.function.name) && !answered.has(call.id));
    let at = index + 1;
    while (conversation[at]?.role === 'tool') at++;
    conversation.splice(at, 0, ...waiting.map((call) => ({ role: 'tool' as const, tool_call_id: call.id, content: 'The user did not approve this call.' })));
  }
}

/** The output items of the model's own turn, without the calls gw ran (their items stand for them). */
export function withoutGwCalls<Message extends { tool_calls?: unknown[] | null }>(message: Message, gw: GwTools): Message {
  const calls = ((message.tool_calls ?? []) as ChatToolCall[]).filter((call) => !gw.runs(call.function.name));
  return { ...message, tool_calls: calls.length ? calls : undefined };
}

/** Citations on the message items' output text. */
export function annotated(items: OutputItem[], gw: GwTools): OutputItem[] {
  return items.map((item) => {
    if (item.type !== 'message') return item;
    return { ...item, content: item.content.map((part) => ('text' in part ? { ...part, annotations: gw.citations(part.text) } : part)) };
  });
}
