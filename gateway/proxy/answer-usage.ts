/**
 * Usage in a pass-through answer, for the log, the cost and the budgets. Any JSON answer may carry
 * `usage` (OpenAI's prompt/completion/total tokens, or the input/output naming of Anthropic and of
 * OpenAI's images and transcriptions; whisper-1 reports seconds, which price nothing) and `model`.
 * Answers are parsed as they stream past, keeping only those two (an image's base64 data is
 * dropped as it goes). Images and transcriptions, whose usage follows megabytes of data, are read
 * whole; any other answer only up to READ_LIMIT bytes, so a huge answer costs no more than that.
 * Streamed (SSE) and compressed answers are not read.
 */
import { JSONParser } from '@streamparser/json';
import type { Usage } from '../providers/types.js';

/** Answers whose usage comes after their (large) content: read to the end. */
const WHOLE_PATHS = new Set(['/images/generations', '/images/edits', '/audio/transcriptions']);
/** How much of any other JSON answer is read for its usage and model. */
export const READ_LIMIT = 1024 * 1024;
const JSON_ANSWER = /^application\/json\b/i;

export interface AnswerFacts {
  usage: Usage | undefined;
  model: string | undefined;
}

const count = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0);

/** `{prompt_tokens, completion_tokens}` or `{input_tokens, output_tokens}` (total optional) in gw's usage terms; undefined for duration usage. */
function usageOf(value: unknown): Usage | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const raw = value as Record<string, unknown>;
  const openai = raw.prompt_tokens !== undefined || raw.completion_tokens !== undefined;
  if (!openai && raw.input_tokens === undefined && raw.output_tokens === undefined) return undefined;
  const prompt = count(openai ? raw.prompt_tokens : raw.input_tokens);
  const completion = count(openai ? raw.completion_tokens : raw.output_tokens);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: count(raw.total_tokens) || prompt + completion };
}

export class AnswerUsageReader {
  readonly facts: AnswerFacts = { usage: undefined, model: undefined };
  private readonly parser = new JSONParser({ paths: ['$.usage', '$.model'], keepStack: false });
  private reading = true;
  private left: number;

  /** A reader for a JSON answer, else undefined. `path` is below /v1, query included. */
  static for(path: string, headers: Record<string, string | string[] | undefined>): AnswerUsageReader | undefined {
    const contentType = headers['content-type'];
    const encoding = headers['content-encoding'];
    if (typeof contentType !== 'string' || !JSON_ANSWER.test(contentType)) return undefined;
    if (encoding !== undefined && encoding !== 'identity') return undefined;
    return new AnswerUsageReader(WHOLE_PATHS.has(path.split('?', 1)[0]!) ? Infinity : READ_LIMIT);
  }

  private constructor(limit: number) {
    this.left = limit;
    this.parser.onValue = ({ key, value }) => {
      if (key === 'usage') this.facts.usage = usageOf(value);
      else if (key === 'model' && typeof value === 'string') this.facts.model = value;
    };
    // Not the JSON it claimed to be: the client gets it as it is, gw just stops reading.
    this.parser.onError = () => {
      this.reading = false;
    };
  }

  write(chunk: Buffer): void {
    if (!this.reading || this.parser.isEnded) return;
    // Past the limit gw stops reading: what was seen so far stands (usage usually comes last, so often none).
    if (chunk.length > this.left) {
      this.reading = false;
      return;
    }
    this.left -= chunk.length;
    this.parser.write(chunk);
  }
}
