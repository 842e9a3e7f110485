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

const server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': completion.length });
    res.end(completion);
  });
});
server.listen(0, '127.0.0.1', () => reportReady((server.address() as AddressInfo).port));
