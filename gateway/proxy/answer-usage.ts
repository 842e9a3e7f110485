/**
 * Usage in a pass-through answer, for the log, the cost and the budgets. Of the OpenAI endpoints gw
 * passes through, JSON answers carry `usage` for images (generated or edited by the GPT image
 * models: input and output tokens) and transcriptions (token-billed models; whisper-1 reports
 * seconds, which price nothing), and `model` for moderations. These answers are parsed as they
 * stream past, keeping only `usage` and `model` (an image's base64 data is dropped as it goes).
 * Streamed (SSE) and compressed answers are not read.
 */
import { JSONParser } from '@streamparser/json';
import type { Usage } from '../providers/types.js';

const READ_PATHS = new Set(['/images/generations', '/images/edits', '/audio/transcriptions', '/moderations']);
const JSON_ANSWER = /^application\/json\b/i;

export interface AnswerFacts {
  usage: Usage | undefined;
  model: string | undefined;
}

const count = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0);

/** OpenAI's `{input_tokens, output_tokens, total_tokens}` in gw's usage terms; undefined for duration usage. */
function usageOf(value: unknown): Usage | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const raw = value as Record<string, unknown>;
  if (raw.input_tokens === undefined && raw.output_tokens === undefined) return undefined;
  const prompt = count(raw.input_tokens);
  const completion = count(raw.output_tokens);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: count(raw.total_tokens) || prompt + completion };
}

export class AnswerUsageReader {
  readonly facts: AnswerFacts = { usage: undefined, model: undefined };
  private readonly parser = new JSONParser({ paths: ['$.usage', '$.model'], keepStack: false });
  private reading = true;

  /** A reader for answers that carry usage or a model, else undefined. `path` is below /v1, query included. */
  static for(path: string, headers: Record<string, string | string[] | undefined>): AnswerUsageReader | undefined {
    const contentType = headers['content-type'];
    const encoding = headers['content-encoding'];
    if (typeof contentType !== 'string' || !JSON_ANSWER.test(contentType)) return undefined;
    if (encoding !== undefined && encoding !== 'identity') return undefined;
    return READ_PATHS.has(path.split('?', 1)[0]!) ? new AnswerUsageReader() : undefined;
  }

  private constructor() {
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
    if (this.reading && !this.parser.isEnded) this.parser.write(chunk);
  }
}
