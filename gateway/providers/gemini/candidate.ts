/**
 * One Gemini candidate's parts, sorted into what OpenAI carries: answer text, thinking text
 * (parts marked `thought`) and function calls as OpenAI tool calls. Gemini gives calls no id
 * unless the model sends one, so ids are made from the completion id and their position.
 *
 * Thinking models sign their function calls (`thoughtSignature`) and want the signature back with
 * the call in the next turn (Gemini 3 refuses the turn without it). OpenAI's tool call has no field
 * for it, so it rides in the tool call id, which clients echo unchanged; contents.ts takes it out.
 */
import type { GeminiPart } from './wire.js';

export interface CandidateParts {
  text: string[];
  reasoning: string[];
  toolCalls: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
}

export const THOUGHT_SIGNATURE_MARK = '__thought__';

/** Splits a tool call id made by sortParts back into the id and the signature it carries. */
export function splitToolCallId(id: string): { id: string; thoughtSignature?: string } {
  const at = id.indexOf(THOUGHT_SIGNATURE_MARK);
  if (at === -1) return { id };
  return { id: id.slice(0, at), thoughtSignature: id.slice(at + THOUGHT_SIGNATURE_MARK.length) };
}

export function toolCallId(completionId: string, choiceIndex: number, callIndex: number): string {
  return `call_${completionId}_${choiceIndex}_${callIndex}`;
}

/** `firstCallIndex` numbers calls across the events of a stream. */
export function sortParts(parts: GeminiPart[] | undefined, completionId: string, choiceIndex: number, firstCallIndex = 0): CandidateParts {
  const sorted: CandidateParts = { text: [], reasoning: [], toolCalls: [] };
  for (const part of parts ?? []) {
    if (part.functionCall) {
      const baseId = part.functionCall.id ?? toolCallId(completionId, choiceIndex, firstCallIndex + sorted.toolCalls.length);
      const id = part.thoughtSignature ? `${baseId}${THOUGHT_SIGNATURE_MARK}${part.thoughtSignature}` : baseId;
      sorted.toolCalls.push({ id, type: 'function', function: { name: part.functionCall.name, arguments: JSON.stringify(part.functionCall.args ?? {}) } });
    } else if (part.text !== undefined) (part.thought ? sorted.reasoning : sorted.text).push(part.text);
  }
  return sorted;
}
