/**
 * A fake Gemini upstream on 127.0.0.1 speaking generateContent: AI Studio paths
 * (POST /v1beta/models/{model}:generateContent, :streamGenerateContent?alt=sse, GET /v1beta/models)
 * and Vertex AI paths (/v1/projects/{p}/locations/{r}/publishers/google/models/{model}:...). Streams
 * send one GenerateContentResponse per SSE event, text split by words, the finish reason and usage on
 * the last. Errors are `{error: {code, message, status}}` (mid-stream: that object bare, without SSE framing). Held to the real format by a test in which
 * @google/genai reads it.
 */
import type { ServerResponse } from 'node:http';
import { startRecordingServer, writeSse, type RecordedRequest, type RecordingServer } from './recording-server.js';

export interface FakeGeminiPart {
  text?: string;
  thought?: boolean;
  functionCall?: { name: string; args: Record<string, unknown> };
}

export interface FakeGeminiCandidate {
  parts: FakeGeminiPart[];
  finishReason: string;
}

export interface FakeGeminiUsage {
  promptTokenCount: number;
  candidatesTokenCount: number;
  totalTokenCount: number;
  cachedContentTokenCount?: number;
  thoughtsTokenCount?: number;
}

export type FakeGeminiReply =
  | { kind: 'response'; candidates: FakeGeminiCandidate[]; usage?: FakeGeminiUsage; /** Streams only: send an error event after this many events. */ errorAfterEvents?: number }
  | { kind: 'error'; status: number; statusText: string; message: string };

export const DEFAULT_GEMINI_REPLY: FakeGeminiReply = {
  kind: 'response',
  candidates: [{ parts: [{ text: 'Hello from the fake Gemini upstream' }], finishReason: 'STOP' }],
  usage: { promptTokenCount: 9, candidatesTokenCount: 6, totalTokenCount: 15 },
};

function responseOf(model: string, candidates: Array<{ index: number; content: { role: 'model'; parts: FakeGeminiPart[] }; finishReason?: string }>, usage?: FakeGeminiUsage) {
  return { candidates, ...(usage ? { usageMetadata: usage } : {}), modelVersion: model, responseId: 'fake-response-01' };
}

/** The SSE events of a streamed answer: text split by words, a function call in one piece, the finish on the last. */
export function geminiStreamEvents(reply: Extract<FakeGeminiReply, { kind: 'response' }>, model: string): unknown[] {
  const events: unknown[] = [];
  reply.candidates.forEach((candidate, index) => {
    const pieces: FakeGeminiPart[] = candidate.parts.flatMap((part) =>
      part.text !== undefined ? part.text.split(/(?= )/).map((text) => ({ ...part, text })) : [part],
    );
    pieces.forEach((piece, position) => {
      const last = position === pieces.length - 1;
      events.push(
        responseOf(model, [{ index, content: { role: 'model', parts: [piece] }, ...(last ? { finishReason: candidate.finishReason } : {}) }], last && index === reply.candidates.length - 1 ? reply.usage : undefined),
      );
    });
  });
  return events;
}

function reply(request: RecordedRequest, res: ServerResponse, model: string, streamed: boolean, answer: FakeGeminiReply): void {
  if (answer.kind === 'error') {
    res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { code: answer.status, message: answer.message, status: answer.statusText } }));
    return;
  }
  if (!streamed) {
    const candidates = answer.candidates.map((candidate, index) => ({ index, content: { role: 'model' as const, parts: candidate.parts }, finishReason: candidate.finishReason }));
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(responseOf(model, candidates, answer.usage)));
    return;
  }
  const events = geminiStreamEvents(answer, model);
  if (answer.errorAfterEvents === undefined) {
    writeSse(res, events.map((data) => ({ data })));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const data of events.slice(0, answer.errorAfterEvents)) res.write(`data: ${JSON.stringify(data)}\n\n`);
  // Google reports a mid-stream failure as a bare JSON object, not as an SSE event.
  res.end(`${JSON.stringify({ error: { code: 503, message: 'The model is overloaded. Please try again later.', status: 'UNAVAILABLE' } }, null, 2)}\n`);
}

const GENERATE = /\/models\/([^/:]+):(generateContent|streamGenerateContent)$/;

export async function startFakeGemini(script: (request: RecordedRequest) => FakeGeminiReply = () => DEFAULT_GEMINI_REPLY): Promise<RecordingServer> {
  return startRecordingServer((request, res) => {
    const [path, query = ''] = request.path.split('?') as [string, string?];
    if (request.method === 'GET' && path === '/v1beta/models') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          models: [{ name: 'models/gemini-2.5-flash', version: '001', displayName: 'Gemini 2.5 Flash', supportedGenerationMethods: ['generateContent', 'countTokens'] }],
        }),
      );
      return;
    }
    const generate = request.method === 'POST' ? GENERATE.exec(path) : null;
    if (generate) {
      const streamed = generate[2] === 'streamGenerateContent';
      if (streamed && !new URLSearchParams(query).has('alt')) {
        res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { code: 400, message: 'this fake streams SSE only: add alt=sse', status: 'INVALID_ARGUMENT' } }));
        return;
      }
      reply(request, res, decodeURIComponent(generate[1]!), streamed, script(request));
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { code: 404, message: `no route ${path}`, status: 'NOT_FOUND' } }));
  });
}
