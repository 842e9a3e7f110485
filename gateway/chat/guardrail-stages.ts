/** The guardrail stages of the chat pipeline (what runs where: chat-guardrails.ts). */
import type { ChatCompletion } from '../providers/types.js';
import { isChatCompletion, isChatRequest, type GatewayAnswer } from './upstream-answer.js';
import { monitorFailed } from '../guardrails/hook-results.js';
import type { ChatStage, ChatState } from './chat-state.js';
import { defaultGuardrails, guardAnswer, guardRequest, ownGuardrails, resolveGuardrails } from './chat-guardrails.js';
import { collectStream } from './held-stream.js';

export const inputGuardrails: ChatStage = {
  name: 'input-guardrails',
  async run(state) {
    // Guardrails judge text: embeddings (vectors, no answer text) run without them.
    if (!isChatRequest(state.request)) return;
    const defaults = await defaultGuardrails(state, 'input');
    const refs = state.plan!.config.input_guardrails;
    // With none configured (the common case) no list is built and nothing more is awaited.
    const configured = Array.isArray(refs) && refs.length > 0 ? await resolveGuardrails(state, refs, 'config.input_guardrails') : [];
    const guardrails = configured.length > 0 ? [...defaults, ...configured] : defaults;
    if (guardrails.length > 0) state.request = await guardRequest(state, guardrails, state.request);
  },
};

/**
 * Output guardrails for the whole answer: the defaults and the root's, and for streams the serving
 * target's own too (they could not run in its call). Resolved once: a stream asks twice (to know
 * whether to hold it, then to judge it once it has ended).
 */
async function outputGuardrailsFor(state: ChatState, streamed: boolean) {
  state.outputGuardrails ??= [
    ...(await defaultGuardrails(state, 'output')),
    ...(await resolveGuardrails(state, state.plan!.config.output_guardrails, 'config.output_guardrails')),
    ...(streamed ? await ownGuardrails(state, state.route!.leaf, 'output_guardrails') : []),
  ];
  return state.outputGuardrails;
}

export const outputGuardrails: ChatStage = {
  name: 'output-guardrails',
  async run(state) {
    const served = state.served!;
    if (!isChatRequest(state.request)) return;
    if (served.kind === 'cache') {
      if (isChatCompletion(served.completion)) state.served = { ...served, completion: await guardAnswer(state, await outputGuardrailsFor(state, false), served.completion) };
      return;
    }
    const answer = served.answer;
    if (answer.kind === 'json') {
      if (!isChatCompletion(answer.completion)) return;
      state.served = { ...served, answer: { kind: 'json', completion: await guardAnswer(state, await outputGuardrailsFor(state, false), answer.completion) } };
      return;
    }
    const guardrails = await outputGuardrailsFor(state, true);
    if (!guardrails.some((guardrail) => guardrail.actions.hold_stream)) return;
    // Held: judged whole before the first byte, then sent as a replay of the (possibly rewritten) answer.
    const completion = await guardAnswer(state, guardrails, await collectStream(state, answer));
    if (state.cacheStatus === 'MISS' || state.cacheStatus === 'REFRESH') void served.store(completion, state.provider);
    state.served = { kind: 'cache', completion };
  },
};

/** A stream that was not held: judged once it has ended, for the results and the log only. */
export const streamedOutputGuardrails: ChatStage = {
  name: 'streamed-output-guardrails',
  async run(state) {
    const served = state.served;
    if (!state.stream || served?.kind !== 'upstream' || served.answer.kind !== 'stream' || !state.completion || !isChatCompletion(state.completion)) return;
    await guardAnswer(state, await outputGuardrailsFor(state, true), state.completion, false);
  },
};

/** A monitor-only guardrail failed on a JSON answer: it passes with 246 (a stream has already sent 200). */
export const guardrailStatus: ChatStage = {
  name: 'guardrail-status',
  run(state) {
    if (!state.stream && state.hookResults && monitorFailed(state.hookResults)) state.status = 246;
  },
};

/** The JSON answer as the client gets it: with `hook_results` whenever guardrails ran. */
export function answerBody(state: ChatState): GatewayAnswer | undefined {
  if (!state.completion || !state.hookResults || !isChatCompletion(state.completion)) return state.completion;
  return { ...state.completion, hook_results: state.hookResults } as ChatCompletion;
}
