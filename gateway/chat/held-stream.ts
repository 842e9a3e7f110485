/**
 * Reads a streamed upstream answer to its end without sending anything, for output guardrails
 * that must judge the whole answer before the client sees its first byte (`actions.hold_stream`).
 */
import { UpstreamError } from '../../core/errors.js';
import { StreamAssembler } from '../cache/stream-assembler.js';
import type { ChatCompletion } from '../providers/types.js';
import type { ChatState } from './chat-state.js';
import type { UpstreamAnswer } from './upstream-answer.js';

export async function collectStream(state: ChatState, answer: Extract<UpstreamAnswer, { kind: 'stream' }>): Promise<ChatCompletion> {
  const assembler = new StreamAssembler();
  const { translator, attempt } = answer;
  try {
    for await (const bytes of answer.body) for (const chunk of translator.push(bytes)) assembler.push(chunk);
    for (const chunk of translator.end()) assembler.push(chunk);
  } catch (error) {
    attempt.abort();
    throw attempt.failure(error);
  }
  attempt.dispose();
  state.usage = translator.usage();
  const completion = assembler.completion();
  if (!completion) throw new UpstreamError(502, 'The upstream stream ended before the answer was complete', 'incomplete_stream');
  if (state.usage && !completion.usage) completion.usage = state.usage;
  return completion;
}
