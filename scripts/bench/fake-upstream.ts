import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { reportReady } from './child-ipc.js';

// A fixed, valid chat completion: the upstream costs as little as Node allows, so what the
// bench measures is the proxy in front of it.
const completion = Buffer.from(
  JSON.stringify({
    id: 'chatcmpl-bench',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'gpt-4o-mini',
    choices: [{ index: 0, message: { role: 'assistant', content: 'Hello from the bench upstream.', refusal: null }, logprobs: null, finish_reason: 'stop' }],
    usage: { prompt_tokens: 9, completion_tokens: 7, total_tokens: 16 },
  }),
);

// The same answer streamed (what an assistant run's turn and a streamed chat call ask for): role,
// text, finish and usage chunks, then [DONE], in one write.
const chunk = (choices: unknown[], usage?: unknown) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'gpt-4o-mini', choices, ...(usage ? { usage } : {}) })}\n\n`;
const streamed = Buffer.from(
  chunk([{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }]) +
    chunk([{ index: 0, delta: { content: 'Hello from the bench upstream.' }, logprobs: null, finish_reason: null }]) +
    chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }]) +
    chunk([], { prompt_tokens: 9, completion_tokens: 7, total_tokens: 16 }) +
    'data: [DONE]\n\n',
);

// A fixed embeddings answer (a 1,536-float vector, text-embedding-3-small's size) for the embeddings row.
const embeddings = Buffer.from(
  JSON.stringify({
    object: 'list',
    data: [{ object: 'embedding', index: 0, embedding: Array.from({ length: 1536 }, (_, i) => Math.sin(i) / 10) }],
    model: 'text-embedding-3-small',
    usage: { prompt_tokens: 3, total_tokens: 3 },
  }),
);

// A fixed Anthropic message, for the Messages rows' Anthropic upstream (POST /v1/messages).
const message = Buffer.from(
  JSON.stringify({
    id: 'msg_bench',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5',
    content: [{ type: 'text', text: 'Hello from the bench upstream.' }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 9, output_tokens: 7, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  }),
);

// An optional delay in milliseconds (the first argument) before each answer: an LLM is slow, and the
// latency rows measure what gw adds while many such calls are in flight.
const delayMs = Number(process.argv[2] ?? 0);
const answer = (send: () => void) => (delayMs > 0 ? setTimeout(send, delayMs) : send());

const server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
  if (req.url?.endsWith('/messages')) {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': message.length });
      res.end(message);
    });
    return;
  }
  if (req.url?.endsWith('/embeddings')) {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': embeddings.length });
      res.end(embeddings);
    });
    return;
  }
  let stream = false;
  // Only whether the body asks for a stream matters; it is not parsed (bench bodies come in one piece).
  req.on('data', (part: Buffer) => {
    stream ||= part.includes('"stream":true');
  });
  req.on('end', () =>
    answer(() => {
      if (stream) {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'content-length': streamed.length });
        res.end(streamed);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': completion.length });
      res.end(completion);
    }),
  );
});
server.listen(0, '127.0.0.1', () => reportReady((server.address() as AddressInfo).port));
