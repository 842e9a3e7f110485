/**
 * A loopback upstream speaking OpenAI's `/embeddings` wire, whose vectors are hashed bags of words
 * (64 dimensions, one count per lower-cased word): texts sharing words are near each other, so
 * search over them is meaningful and deterministic. An input containing EXPLODE answers 500.
 */
import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { startRecordingServer, type RecordingServer } from './recording-server.js';

const DIMENSIONS = 64;

export function wordVector(text: string): number[] {
  const vector = new Array<number>(DIMENSIONS).fill(0);
  for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) vector[createHash('sha1').update(word).digest().readUInt16BE(0) % DIMENSIONS]! += 1;
  return vector;
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

export function startFakeWordEmbedder(): Promise<RecordingServer> {
  return startRecordingServer((request, res) => {
    if (!request.path.endsWith('/embeddings')) return json(res, 404, { error: { message: `no route ${request.path}`, type: 'invalid_request_error' } });
    const body = request.body ?? {};
    const inputs = (typeof body.input === 'string' ? [body.input] : body.input) as string[];
    if (inputs.some((input) => input.includes('EXPLODE'))) return json(res, 500, { error: { message: 'the embedder fell over', type: 'server_error' } });
    json(res, 200, {
      object: 'list',
      data: inputs.map((input, index) => ({ object: 'embedding', index, embedding: wordVector(input) })),
      model: body.model,
      usage: { prompt_tokens: inputs.length, total_tokens: inputs.length },
    });
  });
}
