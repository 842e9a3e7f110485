/**
 * One loopback upstream that speaks the other providers' embedding wire formats, chosen by path:
 * Google AI Studio `:batchEmbedContents`, Vertex AI `:predict`, Bedrock `/model/{id}/invoke`
 * (Titan's `inputText`, or Cohere's `texts`) and Cohere `/v1/embed` and `/v2/embed`. Vectors come
 * from fakeVector, so tests can check order and size.
 */
import type { ServerResponse } from 'node:http';
import { fakeVector } from './fake-openai-more.js';
import { startRecordingServer, type RecordedRequest, type RecordingServer } from './recording-server.js';

type Json = Record<string, unknown>;

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function answer(request: RecordedRequest, res: ServerResponse): void {
  const body = (request.body ?? {}) as Json;
  const path = request.path.split('?')[0]!;
  if (path.endsWith(':batchEmbedContents')) {
    const requests = body.requests as Array<{ content: { parts: Array<{ text: string }> }; outputDimensionality?: number }>;
    return json(res, 200, { embeddings: requests.map((item, index) => ({ values: fakeVector(item.content.parts[0]!.text, index, item.outputDimensionality) })) });
  }
  if (path.endsWith(':predict')) {
    const dims = (body.parameters as { outputDimensionality?: number } | undefined)?.outputDimensionality;
    const instances = body.instances as Array<{ content: string }>;
    return json(res, 200, { predictions: instances.map((item, index) => ({ embeddings: { values: fakeVector(item.content, index, dims), statistics: { token_count: 2, truncated: false } } })) });
  }
  if (path.endsWith('/invoke')) {
    if (!String(request.headers.authorization ?? '').startsWith('AWS4-HMAC-SHA256 ')) return json(res, 403, { message: 'Missing Authentication Token' });
    if (typeof body.inputText === 'string') return json(res, 200, { embedding: fakeVector(body.inputText, 0, body.dimensions as number | undefined), inputTextTokenCount: 3 });
    const texts = body.texts as string[];
    return json(res, 200, { id: 'emb-1', response_type: 'embeddings_floats', texts, embeddings: { float: texts.map((text, index) => fakeVector(text, index)) } });
  }
  if (path.endsWith('/embed')) {
    const texts = body.texts as string[];
    const vectors = texts.map((text, index) => fakeVector(text, index, body.output_dimension as number | undefined));
    const meta = { billed_units: { input_tokens: 4 * texts.length } };
    return json(res, 200, path.endsWith('/v1/embed') ? { id: 'e1', embeddings: vectors, texts, meta } : { id: 'e2', embeddings: { float: vectors }, texts, meta });
  }
  json(res, 404, { error: { message: `no route ${path}` } });
}

export function startFakeEmbedders(): Promise<RecordingServer> {
  return startRecordingServer(answer);
}
