/**
 * A streamed run call: the Assistants server-sent events (`event: <name>` + `data: <json>`) of
 * the run as this process executes it, ending at the run's next resting state
 * (requires_action, or a final status) with `event: done` / `data: [DONE]`. When the execution
 * here ends without one (gw shutting down hands the run back to the queue, the store failed),
 * the stream says so with `event: error` (the error body) before `done`: the run itself
 * goes on elsewhere and can be polled. A client that goes away stops listening; the run goes on.
 */
import type { Call } from '../../core/call.js';
import type { RunEvent } from '../../gateway/assistants/run-events.js';
import { STREAMED, type HandlerResult } from '../types.js';

const RESTING = new Set(['thread.run.requires_action', 'thread.run.completed', 'thread.run.failed', 'thread.run.incomplete', 'thread.run.cancelled', 'thread.run.expired']);

function streamError(message: string): RunEvent {
  // gw's one error body (no field at fault, so no `param`), which is what OpenAI's clients read from an `error` event (they throw its `error`).
  return { event: 'error', data: { error: { code: 'server_error', message, type: 'server_error' } } };
}

export async function streamRun(call: Call, runId: string, opening: RunEvent[], execute: () => Promise<void>): Promise<HandlerResult> {
  const { res } = call;
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' });
  res.flushHeaders();
  const write = (event: RunEvent) => {
    if (!res.destroyed && !res.writableEnded) res.write(`event: ${event.event}\ndata: ${typeof event.data === 'string' ? event.data : JSON.stringify(event.data)}\n\n`);
  };
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    write({ event: 'done', data: '[DONE]' });
    if (!res.writableEnded) res.end();
  };
  for (const event of opening) write(event);
  const stop = call.services.assistantRuns.events.subscribe(runId, (event) => {
    write(event);
    if (RESTING.has(event.event)) finish();
  });
  try {
    await execute();
    if (!finished) write(streamError(`The run ${runId} stopped streaming before it came to rest (it continues in the background): retrieve it to follow it`));
  } catch (error) {
    call.services.logger.error({ err: error, runId }, 'streamed assistant run failed');
    if (!finished) write(streamError(`The run ${runId} could not be executed`));
  } finally {
    stop();
    finish();
  }
  return STREAMED;
}
