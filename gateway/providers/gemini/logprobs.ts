/** Gemini logprobsResult (chosen and top candidates per position) -> OpenAI choice logprobs. */
import type { ChatCompletion } from '../types.js';
import type { GeminiCandidate, GeminiLogprobCandidate } from './wire.js';

type ChoiceLogprobs = ChatCompletion['choices'][number]['logprobs'];

function entry(candidate: GeminiLogprobCandidate) {
  const token = candidate.token ?? '';
  return { token, logprob: candidate.logProbability ?? 0, bytes: [...Buffer.from(token, 'utf8')] };
}

export function logprobsOf(result: GeminiCandidate['logprobsResult']): ChoiceLogprobs {
  if (!result?.chosenCandidates) return null;
  return {
    content: result.chosenCandidates.map((chosen, position) => ({
      ...entry(chosen),
      top_logprobs: (result.topCandidates?.[position]?.candidates ?? []).map(entry),
    })),
    refusal: null,
  };
}
