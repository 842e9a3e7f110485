/**
 * The fake OpenAI upstream's embeddings (`/embeddings`, float vectors only, as gw asks) and legacy
 * completions (`/completions`: a `text_completion` object, or its SSE chunks with usage when
 * `stream_options.include_usage`). Vectors are made from the input so tests can tell them apart.
 */
import type { ServerResponse } from 'node:http';

type Json = Record<string, unknown>;

export const FAKE_COMPLETION_USAGE = { prompt_tokens: 4, completion_tokens: 3, total_tokens: 7 };

/** A vector of `dimensions` values (3 by default) that depends on the input's length and position. */
export function fakeVector(input: unknown, index: number, dimensions = 3): number[] {
  const size = Array.isArray(input) ? input.length : String(input).length;
  return Array.from({ length: dimensions }, (_, k) => (k === 0 ? size : k === 1 ? index + 0.5 : -0.25 * k));
}

function inputsOf(input: unknown): unknown[] {
  if (typeof input === 'string') return [input];
  if (Array.isArray(input) && input.every((item) => typeof item === 'number')) return [input];
  return Array.isArray(input) ? input : [input];
}

function promptText(prompt: unknown): string {
  return typeof prompt === 'string' ? prompt : Array.isArray(prompt) ? prompt.map(String).join(' ') : '';
}

export function answerLegacyOrEmbeddings(res: ServerResponse, path: string, body: Json, content: string | undefined): boolean {
  const route = path.split('?')[0]!;
  if (route.endsWith('/embeddings')) {
    const dimensions = typeof body.dimensions === 'number' ? body.dimensions : 3;
    const data = inputsOf(body.input).map((input, index) => ({ object: 'embedding', index, embedding: fakeVector(input, index, dimensions) }));
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ object: 'list', data, model: String(body.model), usage: { prompt_tokens: 5 * data.length, total_tokens: 5 * data.length } }));
    return true;
  }
  if (!route.endsWith('/completions') || route.endsWith('/chat/completions')) return false;
  const text = content ?? ` echo of ${promptText(body.prompt)}`;
  const base = { id: 'cmpl-fake', object: 'text_completion', created: 1_700_000_000, model: String(body.model) };
  if (body.stream === true) {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const word of text.split(/(?= )/)) res.write(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, text: word, finish_reason: null, logprobs: null }] })}\n\n`);
    res.write(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, text: '', finish_reason: 'stop', logprobs: null }] })}\n\n`);
    if ((body.stream_options as Json | undefined)?.include_usage === true) res.write(`data: ${JSON.stringify({ ...base, choices: [], usage: FAKE_COMPLETION_USAGE })}\n\n`);
    res.end('data: [DONE]\n\n');
    return true;
  }
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ ...base, choices: [{ index: 0, text, finish_reason: 'length', logprobs: null }], usage: FAKE_COMPLETION_USAGE }));
  return true;
}
