/**
 * Runs a pipeline's stages in order until one answers early. With tracing on, each stage runs
 * in a child span of the request's span; with tracing off the loop is the bare loop, so an
 * untraced request pays nothing for the possibility. Any request path built from stages (chat
 * today; embeddings, responses and others that reuse them) gets its stage spans from here.
 */
import type { Call } from '../../core/call.js';
import type { RequestTrace } from '../telemetry/tracing.js';

export interface Stage<S> {
  readonly name: string;
  run(state: S): Promise<void | 'done'> | void | 'done';
}

export async function runStages<S extends { readonly call: Call }>(stages: readonly Stage<S>[], state: S): Promise<void> {
  const trace = state.call.trace;
  if (trace) return runTraced(trace, stages, state);
  for (const stage of stages) {
    // A stage that finished synchronously is not awaited: each await is a trip through the microtask queue.
    let result = stage.run(state);
    if (result instanceof Promise) result = await result;
    if (result === 'done') return;
  }
}

async function runTraced<S>(trace: RequestTrace, stages: readonly Stage<S>[], state: S): Promise<void> {
  for (const stage of stages) {
    const span = trace.child(`stage ${stage.name}`);
    let result: void | 'done';
    try {
      result = await stage.run(state);
    } catch (error) {
      const failure = error as { status?: number; code?: string; message?: string };
      trace.endChild(span, typeof failure.status === 'number' ? failure.status : null, { code: failure.code, message: failure.message });
      throw error;
    }
    trace.endChild(span, null);
    if (result === 'done') return;
  }
}
