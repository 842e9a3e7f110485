/**
 * One model turn of a run, through the chat pipeline (runChat: provider resolution, configs,
 * limits, guardrails, cache, logs — nothing copied). The turn is always a streamed chat call,
 * read back by a ChunkSink: text becomes the run's assistant message (created at the first
 * token, `thread.message.delta` per token), function tool calls become a tool_calls step (created
 * at the first tool-call chunk, `thread.run.step.delta` as the arguments stream in). With
 * parallel_tool_calls false, a turn keeps the model's first tool call only, on every provider
 * (Gemini and Bedrock have no switch for it upstream).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Call } from '../../core/call.js';
import { ApiError } from '../../core/errors.js';
import type { Services } from '../../core/services.js';
import type { Owner } from './thread-writer.js';
import { nextPosition } from '../../store/repositories/assistant-objects.js';
import { StreamAssembler } from '../cache/stream-assembler.js';
import type { ChatCompletion, ChatCompletionChunk, Usage } from '../providers/types.js';
import { runChat } from '../chat/run-chat.js';
import { newObjectId, unixSeconds } from './object-ids.js';
import type { RunEvents } from './run-events.js';
import { openHeaders, principalFrom, type RunState } from './run-state.js';
import { turnRequest } from './turn-request.js';
import { citations, FILE_SEARCH_FUNCTION, fileSearchSettings, runFileSearch } from './file-search.js';
import type { StoredPrincipal } from '../batches/line-call.js';
import { ChunkSink } from '../chat/chunk-sink.js';
import { CODE_INTERPRETER_FUNCTION, codeOf, filePathAnnotations, hasCodeInterpreter, modelOutput, sandboxFiles, storeWritten, type CodeFile } from './code-interpreter.js';
import type { MessageObject, RunObject, RunStepObject, RunToolCall, RunUsage } from './wire.js';

export type TurnOutcome =
  | { kind: 'completed'; usage: Usage | undefined }
  | { kind: 'incomplete'; reason: 'max_completion_tokens' | 'max_prompt_tokens'; usage: Usage | undefined }
  | { kind: 'requires_action'; toolCalls: RunToolCall[]; transcriptAdd: Record<string, unknown>; stepId: string; usage: Usage | undefined }
  | { kind: 'failed'; code: 'server_error' | 'rate_limit_exceeded' | 'invalid_prompt'; message: string; usage: Usage | undefined }
  | { kind: 'aborted'; usage: Usage | undefined }
  /** The model called file_search or code_interpreter: gw ran them, and the run takes another turn with the results. */
  | { kind: 'searched'; transcriptAdd: Record<string, unknown>[]; sources: Record<string, string>; searches: number; codeCalls: number; codeFiles: CodeFile[]; usage: Usage | undefined };

export interface TurnInput {
  run: RunObject;
  owner: Owner;
  state: RunState;
  /** The turn's response sink is handed out so a cancel can close it (aborting the upstream call). */
  onResponse(res: ChunkSink): void;
}

const ZERO: RunUsage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };

type ToolCallChunk = NonNullable<ChatCompletionChunk['choices'][number]['delta']['tool_calls']>[number];

/** The run's metadata in the turn's request log (x-gw-metadata), so logs link to the run and thread. */
function withRunMetadata(headers: Record<string, string>, run: RunObject): Record<string, string> {
  let given: Record<string, string>;
  try {
    given = headers['x-gw-metadata'] ? (JSON.parse(headers['x-gw-metadata']) as Record<string, string>) : {};
  } catch {
    // The pipeline's header check answers for malformed metadata.
    return headers;
  }
  return { ...headers, 'x-gw-metadata': JSON.stringify({ ...given, assistant_id: run.assistant_id, thread_id: run.thread_id, run_id: run.id }) };
}

function usageOf(usage: Usage | undefined): RunUsage | undefined {
  return usage ? { prompt_tokens: usage.prompt_tokens, completion_tokens: usage.completion_tokens, total_tokens: usage.total_tokens } : undefined;
}

function failureOf(error: { status?: number; code?: string; message?: string }): { code: 'server_error' | 'rate_limit_exceeded' | 'invalid_prompt'; message: string } {
  const message = error.message ?? 'The model call failed';
  if (error.status === 429) return { code: 'rate_limit_exceeded', message };
  // A guardrail that denied the prompt, or a request the provider refused as invalid.
  if (error.status === 446 || error.status === 400) return { code: 'invalid_prompt', message };
  return { code: 'server_error', message };
}

export class RunTurn {
  private message: MessageObject | undefined;
  private step: RunStepObject | undefined;
  private text = '';
  /** The tool_calls step, opened at the turn's first tool-call chunk. */
  private toolStep: RunStepObject | undefined;
  /** The turn's tool calls by the model's index, assembled as they stream. */
  private readonly toolCalls = new Map<number, RunToolCall>();
  /** The turn's file_search and code_interpreter calls by the model's index: gw answers them, so they are not streamed as function calls. */
  private readonly searchCalls = new Map<number, RunToolCall>();
  private messages: readonly MessageObject[] = [];
  private sink: ChunkSink | undefined;

  constructor(
    private readonly services: Services,
    private readonly events: RunEvents,
    private readonly input: TurnInput,
  ) {}

  private get run(): RunObject {
    return this.input.run;
  }

  private now(): number {
    return unixSeconds(this.services.now());
  }

  private emit(event: string, data: unknown): void {
    this.events.emit(this.run.id, event, data);
  }

  async execute(): Promise<TurnOutcome> {
    const { services, run } = this;
    const { store } = services;
    const messages = (await store.assistantMessages.all({ workspaceId: this.input.owner.workspaceId, threadId: run.thread_id })).map((row) => row.body);
    this.lastUserText = latestUserText(messages);
    this.messages = messages;
    const request = turnRequest(run, messages, this.input.state.transcript, run.usage ?? ZERO, this.input.state.searches ?? 0, {
      calls: this.input.state.codeCalls ?? 0,
      max: services.config.codeInterpreter.maxCallsPerRun,
    });
    const headers = withRunMetadata(openHeaders(services.secrets, this.input.state.sealedHeaders), run);
    const assembler = new StreamAssembler();
    const res = new ChunkSink(async (chunk) => {
      assembler.push(chunk);
      const delta = chunk.choices[0]?.delta;
      if (typeof delta?.content === 'string' && delta.content.length > 0) await this.appendText(delta.content);
      if (delta?.tool_calls?.length) await this.streamToolCalls(delta.tool_calls);
    });
    this.input.onResponse(res);
    this.sink = res;
    const call: Call = {
      // Every turn of a run shares one trace: the run id finds them all in the logs.
      traceId: run.id,
      req: { headers } as unknown as IncomingMessage,
      res: res as unknown as ServerResponse,
      ip: '',
      startedAt: services.now(),
      services,
      principal: principalFrom(this.input.state.principal),
    };
    try {
      await runChat(call, request);
      // The pipeline has ended the response; the chunks it wrote may still be in the sink's buffer.
      await res.settled();
    } catch (error) {
      const usage = assembler.completion()?.usage;
      if (res.stopped) {
        await this.closeMessage('incomplete', usage, 'run_cancelled');
        await this.closeToolStep('cancelled');
        return { kind: 'aborted', usage };
      }
      await this.closeMessage('incomplete');
      await this.closeToolStep('failed');
      return { kind: 'failed', ...failureOf(error instanceof ApiError ? error : {}), usage };
    }
    const completion = assembler.completion();
    if (res.stopped && !completion) {
      await this.closeMessage('incomplete', undefined, 'run_cancelled');
      await this.closeToolStep('cancelled');
      return { kind: 'aborted', usage: undefined };
    }
    if (res.streamError || !completion) {
      await this.closeMessage('incomplete');
      await this.closeToolStep('failed');
      return { kind: 'failed', ...failureOf({ message: res.streamError?.message ?? 'The model stream ended early' }), usage: completion?.usage };
    }
    return this.finish(completion);
  }

  private async finish(completion: ChatCompletion): Promise<TurnOutcome> {
    const usage = completion.usage;
    const choice = completion.choices[0];
    if (choice?.finish_reason === 'length' && typeof this.run.max_completion_tokens === 'number') {
      await this.closeMessage('incomplete', usage, 'max_tokens');
      await this.closeToolStep('failed', usage);
      return { kind: 'incomplete', reason: 'max_completion_tokens', usage };
    }
    const promptBudget = this.run.max_prompt_tokens;
    if (typeof promptBudget === 'number' && usage && (this.run.usage?.prompt_tokens ?? 0) + usage.prompt_tokens > promptBudget) {
      await this.closeMessage('incomplete', usage, 'max_tokens');
      await this.closeToolStep('failed', usage);
      return { kind: 'incomplete', reason: 'max_prompt_tokens', usage };
    }
    if (this.searchCalls.size > 0) return this.search(usage);
    const calls = [...this.toolCalls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call);
    await this.closeMessage('completed', calls.length ? undefined : usage);
    if (calls.length === 0 || !this.toolStep) return { kind: 'completed', usage };
    // The step keeps waiting (in_progress) for the outputs; it now holds the whole calls and the turn's usage.
    const step: RunStepObject = {
      ...this.toolStep,
      step_details: { type: 'tool_calls', tool_calls: calls.map((call) => ({ ...call, function: { ...call.function, output: null } })) },
      usage: usageOf(usage) ?? null,
    };
    await this.services.store.assistantRunSteps.replaceBody(step.id, step);
    return {
      kind: 'requires_action',
      toolCalls: calls,
      transcriptAdd: { role: 'assistant', content: this.text || null, tool_calls: calls },
      stepId: step.id,
      usage,
    };
  }

  /**
   * The turn's file_search calls, run by gw: one completed tool_calls step with the results, and the
   * exchange added to the transcript for the next turn. Function calls the model made beside them
   * are dropped (their step cancelled): the model sees the passages and calls them again if needed.
   */
  private async search(usage: Usage | undefined): Promise<TurnOutcome> {
    await this.closeMessage('completed');
    await this.closeToolStep('cancelled');
    const calls = [...this.searchCalls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call);
    const step = await this.newStep({ type: 'tool_calls', tool_calls: [] });
    const toolCalls: Record<string, unknown>[] = [];
    const outputs: Record<string, unknown>[] = [];
    const sources: Record<string, string> = {};
    let searchIndex = this.input.state.searches ?? 0;
    const codeFiles: CodeFile[] = [];
    let codeCalls = 0;
    for (const call of calls) {
      if (call.function.name === CODE_INTERPRETER_FUNCTION) {
        const result = await this.runCode(step, call, toolCalls.length, [...(this.input.state.codeFiles ?? []), ...codeFiles]);
        codeCalls++;
        toolCalls.push(result.toolCall);
        outputs.push({ role: 'tool', tool_call_id: call.id, content: result.output });
        codeFiles.push(...result.files);
        continue;
      }
      const result = await runFileSearch(this.services, this.input.owner, this.input.state.principal as StoredPrincipal, this.run, { id: call.id, query: searchQuery(call.function.arguments, this.lastUserText) }, searchIndex++);
      toolCalls.push(result.toolCall);
      outputs.push({ role: 'tool', tool_call_id: call.id, content: result.output });
      Object.assign(sources, result.sources);
    }
    const done: RunStepObject = { ...step, status: 'completed', completed_at: this.now(), step_details: { type: 'tool_calls', tool_calls: toolCalls }, usage: usageOf(usage) ?? null };
    await this.services.store.assistantRunSteps.replaceBody(done.id, done);
    const searched = toolCalls.flatMap((call, index) => (call.type === 'file_search' ? [{ index, ...call }] : []));
    if (searched.length) this.emit('thread.run.step.delta', { id: done.id, object: 'thread.run.step.delta', delta: { step_details: { type: 'tool_calls', tool_calls: searched } } });
    this.emit('thread.run.step.completed', done);
    return {
      kind: 'searched',
      transcriptAdd: [{ role: 'assistant', content: this.text || null, tool_calls: calls }, ...outputs],
      sources,
      searches: calls.length - codeCalls,
      codeCalls,
      codeFiles,
      usage,
    };
  }

  /** One code_interpreter call: its input streams as a step delta, the code runs in the sandbox, then its outputs stream. */
  private async runCode(step: RunStepObject, call: RunToolCall, index: number, written: readonly CodeFile[]): Promise<{ toolCall: Record<string, unknown>; output: string; files: CodeFile[] }> {
    const { services } = this;
    const code = codeOf(call.function.arguments);
    const delta = (codeInterpreter: Record<string, unknown>) =>
      this.emit('thread.run.step.delta', { id: step.id, object: 'thread.run.step.delta', delta: { step_details: { type: 'tool_calls', tool_calls: [{ index, id: call.id, type: 'code_interpreter', code_interpreter: codeInterpreter }] } } });
    delta({ input: code, outputs: [] });
    const mounted = await sandboxFiles(services, this.input.owner, this.run, this.messages, written);
    const result = await services.assistantRuns.sandbox.run(code, mounted, this.sink?.stopSignal);
    const files = await storeWritten(services, this.input.owner, result.files);
    const logs = [result.logs.trimEnd(), result.error].filter(Boolean).join('\n');
    const outputs: Array<Record<string, unknown>> = [];
    if (logs) outputs.push({ type: 'logs', logs });
    for (const file of files) if (file.image) outputs.push({ type: 'image', image: { file_id: file.file_id } });
    delta({ outputs: outputs.map((output, outputIndex) => ({ index: outputIndex, ...output })) });
    return { toolCall: { id: call.id, type: 'code_interpreter', code_interpreter: { input: code, outputs } }, output: modelOutput(result.logs, result.error, files), files };
  }

  /** Tool-call chunks: the tool_calls step opens at the first, each sends a `thread.run.step.delta` in OpenAI's shape. */
  private async streamToolCalls(all: readonly ToolCallChunk[]): Promise<void> {
    const chunks = all.filter((chunk) => !this.takeSearchCall(chunk));
    if (chunks.length === 0) return;
    const firstIndex = this.toolCalls.keys().next().value ?? chunks[0]!.index;
    const kept = this.run.parallel_tool_calls === false ? chunks.filter((chunk) => chunk.index === firstIndex) : chunks;
    if (kept.length === 0) return;
    this.toolStep ??= await this.newStep({ type: 'tool_calls', tool_calls: [] });
    const deltas = kept.map((chunk) => {
      const known = this.toolCalls.get(chunk.index);
      const name = chunk.function?.name ?? '';
      const args = chunk.function?.arguments ?? '';
      if (!known) {
        const call: RunToolCall = { id: chunk.id || newObjectId('call'), type: 'function', function: { name, arguments: args } };
        this.toolCalls.set(chunk.index, call);
        return { index: chunk.index, id: call.id, type: 'function', function: { name, arguments: args, output: null } };
      }
      known.function.name += name;
      known.function.arguments += args;
      return { index: chunk.index, type: 'function', function: { ...(name ? { name } : {}), arguments: args } };
    });
    this.emit('thread.run.step.delta', { id: this.toolStep.id, object: 'thread.run.step.delta', delta: { step_details: { type: 'tool_calls', tool_calls: deltas } } });
  }

  /** Keeps a chunk of a file_search or code_interpreter call (when the run has the tool); true when it was one. */
  private takeSearchCall(chunk: ToolCallChunk): boolean {
    const known = this.searchCalls.get(chunk.index);
    if (known) {
      known.function.arguments += chunk.function?.arguments ?? '';
      return true;
    }
    const name = chunk.function?.name;
    const ours = (name === FILE_SEARCH_FUNCTION && fileSearchSettings(this.run)) || (name === CODE_INTERPRETER_FUNCTION && hasCodeInterpreter(this.run));
    if (this.toolCalls.has(chunk.index) || !ours) return false;
    this.searchCalls.set(chunk.index, { id: chunk.id || newObjectId('call'), type: 'function', function: { name, arguments: chunk.function?.arguments ?? '' } });
    return true;
  }

  /** A tool_calls step opened by a turn that then did not end in requires_action. */
  private async closeToolStep(status: 'failed' | 'cancelled', usage?: Usage): Promise<void> {
    if (!this.toolStep) return;
    const at = this.now();
    const step: RunStepObject = {
      ...this.toolStep,
      status,
      failed_at: status === 'failed' ? at : null,
      cancelled_at: status === 'cancelled' ? at : null,
      usage: usageOf(usage) ?? this.toolStep.usage,
    };
    this.toolStep = step;
    await this.services.store.assistantRunSteps.replaceBody(step.id, step);
    this.emit(`thread.run.step.${status}`, step);
  }

  private async newStep(details: RunStepObject['step_details'], usage?: Usage): Promise<RunStepObject> {
    const { run } = this;
    const step: RunStepObject = {
      id: newObjectId('step'),
      object: 'thread.run.step',
      created_at: this.now(),
      assistant_id: run.assistant_id,
      thread_id: run.thread_id,
      run_id: run.id,
      type: details.type,
      status: 'in_progress',
      step_details: details,
      last_error: null,
      expired_at: null,
      cancelled_at: null,
      failed_at: null,
      completed_at: null,
      metadata: null,
      usage: usageOf(usage) ?? null,
    };
    await this.services.store.assistantRunSteps.insert({
      id: step.id,
      organisation_id: this.input.owner.organisationId,
      workspace_id: this.input.owner.workspaceId,
      thread_id: run.thread_id,
      run_id: run.id,
      position: nextPosition(this.services.now()),
      body: step,
    });
    this.emit('thread.run.step.created', step);
    this.emit('thread.run.step.in_progress', step);
    return step;
  }

  /** The thread's latest user text: the query when the model's file_search call names none. */
  private lastUserText = '';

  private async appendText(delta: string): Promise<void> {
    if (!this.message) await this.openMessage();
    this.text += delta;
    this.emit('thread.message.delta', {
      id: this.message!.id,
      object: 'thread.message.delta',
      delta: { content: [{ index: 0, type: 'text', text: { value: delta, annotations: [] } }] },
    });
  }

  private async openMessage(): Promise<void> {
    const { run } = this;
    const message: MessageObject = {
      id: newObjectId('msg'),
      object: 'thread.message',
      created_at: this.now(),
      thread_id: run.thread_id,
      status: 'in_progress',
      incomplete_details: null,
      completed_at: null,
      incomplete_at: null,
      role: 'assistant',
      content: [],
      assistant_id: run.assistant_id,
      run_id: run.id,
      attachments: [],
      metadata: {},
    };
    this.message = message;
    this.step = await this.newStep({ type: 'message_creation', message_creation: { message_id: message.id } });
    await this.services.store.assistantMessages.insert({
      id: message.id,
      organisation_id: this.input.owner.organisationId,
      workspace_id: this.input.owner.workspaceId,
      thread_id: run.thread_id,
      run_id: run.id,
      position: nextPosition(this.services.now()),
      body: message,
    });
    this.emit('thread.message.created', message);
    this.emit('thread.message.in_progress', message);
  }

  /** Writes the turn's message whole (completed, or incomplete when the turn stopped short) and ends its step. */
  async closeMessage(status: 'completed' | 'incomplete', usage?: Usage, reason: 'max_tokens' | 'run_failed' | 'run_cancelled' = 'run_failed'): Promise<void> {
    if (!this.message || !this.step) return;
    const at = this.now();
    const { codeFiles = [] } = this.input.state;
    const completed = status === 'completed';
    const annotations = completed ? [...citations(this.text, this.input.state.sources), ...filePathAnnotations(this.text, codeFiles)] : [];
    // The run's images lead the answer; its other files are the message's attachments.
    const images = completed ? codeFiles.filter((file) => file.image).map((file) => ({ type: 'image_file' as const, image_file: { file_id: file.file_id } })) : [];
    const others = completed ? codeFiles.filter((file) => !file.image).map((file) => ({ file_id: file.file_id, tools: [{ type: 'code_interpreter' as const }] })) : [];
    const message: MessageObject = {
      ...this.message,
      status,
      content: [...images, { type: 'text', text: { value: this.text, annotations } }] as MessageObject['content'],
      attachments: others.length ? others : this.message.attachments,
      completed_at: status === 'completed' ? at : null,
      incomplete_at: status === 'incomplete' ? at : null,
      incomplete_details: status === 'incomplete' ? { reason } : null,
    };
    const step: RunStepObject = {
      ...this.step,
      status: status === 'completed' ? 'completed' : 'failed',
      completed_at: status === 'completed' ? at : null,
      failed_at: status === 'completed' ? null : at,
      usage: usageOf(usage) ?? this.step.usage,
    };
    this.message = message;
    this.step = step;
    await this.services.store.assistantMessages.replaceBody(message.id, message);
    await this.services.store.assistantRunSteps.replaceBody(step.id, step);
    this.emit(status === 'completed' ? 'thread.message.completed' : 'thread.message.incomplete', message);
    this.emit(status === 'completed' ? 'thread.run.step.completed' : 'thread.run.step.failed', step);
  }
}

function latestUserText(messages: readonly MessageObject[]): string {
  const user = [...messages].reverse().find((message) => message.role === 'user');
  const parts = (user?.content ?? []) as Array<{ type: string; text?: { value: string } }>;
  return parts.filter((part) => part.type === 'text').map((part) => part.text!.value).join('\n');
}

/** The model's `query` argument; a call without one (or with arguments that do not parse) searches the user's latest words. */
function searchQuery(args: string, fallback: string): string {
  try {
    const query = (JSON.parse(args) as { query?: unknown }).query;
    if (typeof query === 'string' && query.trim()) return query;
  } catch {
    // fall back below
  }
  return fallback || 'file';
}
