/**
 * A fake AWS Bedrock runtime on 127.0.0.1 speaking the real wire formats: Converse JSON,
 * ConverseStream in the AWS event-stream binary framing (application/vnd.amazon.eventstream),
 * InvokeModel and InvokeModelWithResponseStream (the model's own JSON; `chunk` events),
 * restJson errors (x-amzn-errortype + `{"message"}`), CountTokens (always 2000) and ListFoundationModels. Every request's
 * SigV4 signature is checked independently (sigv4-check.ts); a bad signature gets AWS's 403.
 * Each request takes the next scripted behaviour (the last one repeats).
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import { checkSigV4, type SignatureCheck } from './sigv4-check.js';

export type StreamFrame =
  | { event: string; payload: Record<string, unknown> }
  | { exception: string; message: string };

export type BedrockBehaviour =
  | { kind: 'converse'; body: Record<string, unknown> }
  /** InvokeModel: the model's own JSON answer. */
  | { kind: 'invoke'; body: Record<string, unknown> }
  /** `chunkBytes` splits the encoded frames into writes of that many bytes (default: one write per frame). */
  | { kind: 'stream'; frames: StreamFrame[]; chunkBytes?: number }
  | { kind: 'error'; status: number; type: string; message: string };

export interface BedrockReceived {
  method: string;
  rawUrl: string;
  /** `converse`, `converse-stream`, `invoke`, `invoke-with-response-stream` or `foundation-models`. */
  operation: string;
  /** The model id, decoded from its path segment. */
  modelId?: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
  /** The body bytes as received. */
  raw: Buffer;
  signature: SignatureCheck;
}

export interface FakeBedrock {
  url: string;
  received: BedrockReceived[];
  close(): Promise<void>;
}

const codec = new EventStreamCodec(toUtf8, fromUtf8);

export function encodeFrame(frame: StreamFrame): Uint8Array {
  const string = (value: string) => ({ type: 'string' as const, value });
  if ('exception' in frame) {
    return codec.encode({
      headers: { ':message-type': string('exception'), ':exception-type': string(frame.exception), ':content-type': string('application/json') },
      body: fromUtf8(JSON.stringify({ message: frame.message })),
    });
  }
  return codec.encode({
    headers: { ':message-type': string('event'), ':event-type': string(frame.event), ':content-type': string('application/json') },
    // Bedrock pads every event payload with a `p` field of filler characters.
    body: fromUtf8(JSON.stringify({ ...frame.payload, p: 'abcdefghijklmnopqrstuvwxyzABCDEFGH' })),
  });
}

const ROUTE = /^\/model\/([^/]+)\/(converse|converse-stream|invoke|invoke-with-response-stream|count-tokens)$/;

export async function startFakeBedrock(options: {
  credentials: Record<string, string>;
  script: BedrockBehaviour[] | ((received: BedrockReceived) => BedrockBehaviour);
}): Promise<FakeBedrock> {
  const received: BedrockReceived[] = [];
  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      const raw = Buffer.concat(parts);
      const rawUrl = req.url ?? '/';
      const path = rawUrl.split('?')[0]!;
      const route = ROUTE.exec(path);
      const signature = checkSigV4({ method: req.method ?? 'GET', rawUrl, headers: req.headers, body: raw }, (id) => options.credentials[id]);
      const entry: BedrockReceived = {
        method: req.method ?? 'GET',
        rawUrl,
        operation: route ? route[2]! : path.replace(/^\//, ''),
        ...(route ? { modelId: decodeURIComponent(route[1]!) } : {}),
        headers: req.headers,
        body: raw.length > 0 ? (JSON.parse(raw.toString('utf8')) as Record<string, unknown>) : {},
        raw,
        signature,
      };
      received.push(entry);
      const sendError = (status: number, type: string, message: string) =>
        res
          .writeHead(status, { 'content-type': 'application/json', 'x-amzn-errortype': `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/`, 'x-amzn-requestid': 'fake-request-id' })
          .end(JSON.stringify({ message }));
      if (!signature.valid) {
        sendError(403, 'InvalidSignatureException', `The request signature we calculated does not match the signature you provided (${signature.reason}).`);
        return;
      }
      if (entry.operation === 'foundation-models' && req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({ modelSummaries: [{ modelId: 'anthropic.claude-3-5-sonnet-20240620-v1:0', providerName: 'Anthropic', modelName: 'Claude 3.5 Sonnet' }] }),
        );
        return;
      }
      if (!route || req.method !== 'POST') {
        sendError(404, 'UnknownOperationException', `no operation at ${req.method} ${path}`);
        return;
      }
      if (entry.operation === 'count-tokens') {
        // CountTokens: a fixed count, so a test can tell it from gw's estimate.
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ inputTokens: 2000 }));
        return;
      }
      const behaviour = typeof options.script === 'function' ? options.script(entry) : options.script[Math.min(received.length - 1, options.script.length - 1)]!;
      switch (behaviour.kind) {
        case 'converse':
        case 'invoke':
          res.writeHead(200, { 'content-type': 'application/json', 'x-amzn-requestid': 'fake-request-id' }).end(JSON.stringify(behaviour.body));
          return;
        case 'error':
          sendError(behaviour.status, behaviour.type, behaviour.message);
          return;
        case 'stream': {
          res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-requestid': 'fake-request-id' });
          const bytes = behaviour.frames.map(encodeFrame);
          if (behaviour.chunkBytes) {
            const all = Buffer.concat(bytes);
            for (let offset = 0; offset < all.length; offset += behaviour.chunkBytes) res.write(all.subarray(offset, offset + behaviour.chunkBytes));
          } else {
            for (const frame of bytes) res.write(frame);
          }
          res.end();
          return;
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
