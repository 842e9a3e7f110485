import { fileSearchAttachments, threadStores } from '../../gateway/assistants/thread-files.js';
import { storedPrincipal } from '../../gateway/batches/line-call.js';
import { RESULT_CONTENT_INCLUDE, withoutResultContent } from '../../gateway/assistants/file-search.js';
import { startRun, type RunRequest } from '../../gateway/assistants/start-run.js';
import { writeThread } from '../../gateway/assistants/thread-writer.js';
import type { RunObject, ThreadObject } from '../../gateway/assistants/wire.js';
import { principalOf, type Call } from '../../core/call.js';
import { NotFoundError } from '../../core/errors.js';
import { body, query, type Handler, type HandlerResult } from '../types.js';
import { ownerOf, pathParam, visibleThread } from './owner.js';
import { streamRun } from './run-stream.js';

async function visibleRunRow(call: Call, threadId: string, runId: string) {
  const row = await call.services.store.assistantRuns.get({ workspaceId: ownerOf(call).workspaceId, threadId }, runId);
  if (!row) throw new NotFoundError('Run', runId);
  const full = await call.services.store.assistantRuns.byId(runId);
  if (!full) throw new NotFoundError('Run', runId);
  return full;
}

/** Answers a run just created or continued: the run object (executed in the background), or its event stream. */
async function answer(call: Call, run: RunObject, stream: boolean, opening: Array<{ event: string; data: unknown }>): Promise<HandlerResult> {
  const executor = call.services.assistantRuns;
  if (!stream) {
    await executor.schedule(run.id);
    return { body: run };
  }
  return streamRun(call, run.id, opening, () => executor.execute(run.id));
}

function callerOf(call: Call) {
  return { principal: principalOf(call), owner: ownerOf(call), headers: call.req.headers };
}

export const createRun: Handler = async (c, call) => {
  const thread = await visibleThread(call, pathParam(c, 'thread_id'));
  const input = body<'createRun'>(c) as RunRequest;
  const run = await startRun(call.services, callerOf(call), thread.id, input, input.stream === true);
  return answer(call, run, input.stream === true, [
    { event: 'thread.run.created', data: run },
    { event: 'thread.run.queued', data: run },
  ]);
};

export const createThreadAndRun: Handler = async (c, call) => {
  const input = body<'createThreadAndRun'>(c) as RunRequest & { thread?: Parameters<typeof writeThread>[2]; tool_resources?: ThreadObject['tool_resources'] };
  const { store } = call.services;
  // The assistant is checked before the thread is written: a refused run leaves nothing behind.
  const assistant = (await store.assistants.get({ workspaceId: ownerOf(call).workspaceId }, input.assistant_id!))?.body;
  if (!assistant) throw new NotFoundError('Assistant', input.assistant_id);
  const threadInput = { ...(input.thread ?? {}), tool_resources: input.thread?.tool_resources ?? input.tool_resources };
  const toolResources = await threadStores(call.services, ownerOf(call), storedPrincipal(principalOf(call)), threadInput, fileSearchAttachments(threadInput.messages ?? []), 'thread');
  const thread = await writeThread(store, ownerOf(call), { ...threadInput, tool_resources: toolResources }, 'thread', call.services.now());
  let run: RunObject;
  try {
    run = await startRun(call.services, callerOf(call), thread.id, input, input.stream === true, assistant);
  } catch (error) {
    await store.transaction(async (tx) => {
      await tx.assistantMessages.deleteThreadContents(thread.id);
      await tx.assistantThreads.delete({ workspaceId: ownerOf(call).workspaceId }, thread.id);
    });
    throw error;
  }
  return answer(call, run, input.stream === true, [
    { event: 'thread.created', data: thread },
    { event: 'thread.run.created', data: run },
    { event: 'thread.run.queued', data: run },
  ]);
};

export const listRuns: Handler = async (c, call) => {
  const thread = await visibleThread(call, pathParam(c, 'thread_id'));
  return { body: await call.services.store.assistantRuns.list({ workspaceId: ownerOf(call).workspaceId, threadId: thread.id }, query<'listRuns'>(c)) };
};

export const getRun: Handler = async (c, call) => {
  const row = await visibleRunRow(call, pathParam(c, 'thread_id'), pathParam(c, 'run_id'));
  return { body: await call.services.assistantRuns.expireIfDue(row) };
};

export const modifyRun: Handler = async (c, call) => {
  const row = await visibleRunRow(call, pathParam(c, 'thread_id'), pathParam(c, 'run_id'));
  const input = body<'modifyRun'>(c);
  if (input.metadata === undefined) return { body: row.body };
  const updated: RunObject = { ...row.body, metadata: input.metadata ?? {} };
  // Only the metadata changes; a status moved meanwhile is kept.
  await call.services.store.assistantRuns.transition(row.id, [row.status], updated);
  return { body: (await call.services.store.assistantRuns.byId(row.id))?.body ?? updated };
};

export const cancelRun: Handler = async (c, call) => {
  const row = await visibleRunRow(call, pathParam(c, 'thread_id'), pathParam(c, 'run_id'));
  return { body: await call.services.assistantRuns.cancel(row) };
};

export const submitToolOutputsToRun: Handler = async (c, call) => {
  const row = await visibleRunRow(call, pathParam(c, 'thread_id'), pathParam(c, 'run_id'));
  const input = body<'submitToolOutputsToRun'>(c);
  const executor = call.services.assistantRuns;
  // A run waiting past expires_at has expired: outputs to it are refused like any finished run's.
  await executor.expireIfDue(row);
  const fresh = (await call.services.store.assistantRuns.byId(row.id)) ?? row;
  const run = await executor.submitToolOutputs(fresh, input.tool_outputs, input.stream === true);
  return answer(call, run, input.stream === true, [{ event: 'thread.run.queued', data: run }]);
};

/** file_search results carry their text only when asked (`include[]`), as OpenAI answers. */
function stepView(c: Parameters<Handler>[0]): <Step extends { step_details?: unknown }>(step: Step) => Step {
  const include = (c.request.query as { include?: string | string[]; 'include[]'?: string | string[] }) ?? {};
  const asked = [include.include, include['include[]']].flat().includes(RESULT_CONTENT_INCLUDE);
  return (step) => (asked ? step : withoutResultContent(step));
}

export const listRunSteps: Handler = async (c, call) => {
  const row = await visibleRunRow(call, pathParam(c, 'thread_id'), pathParam(c, 'run_id'));
  const { include: _include, ...request } = query<'listRunSteps'>(c);
  const page = await call.services.store.assistantRunSteps.list({ workspaceId: ownerOf(call).workspaceId, runId: row.id }, request);
  return { body: { ...page, data: page.data.map(stepView(c)) } };
};

export const getRunStep: Handler = async (c, call) => {
  const row = await visibleRunRow(call, pathParam(c, 'thread_id'), pathParam(c, 'run_id'));
  const step = await call.services.store.assistantRunSteps.get({ workspaceId: ownerOf(call).workspaceId, runId: row.id }, pathParam(c, 'step_id'));
  if (!step) throw new NotFoundError('Run step', pathParam(c, 'step_id'));
  return { body: stepView(c)(step.body) };
};
