import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';
import { reportReady } from './child-ipc.js';

// The Node ceiling: read the body, forward it with a pooled keep-alive client, answer with what came back. Nothing else.
// No connection limit, as gw's upstream agent: the latency rows keep 200 calls in flight at once.
const upstream = new Pool(`http://127.0.0.1:${process.argv[2]}`, { connections: null });

function forwardable(headers: IncomingHttpHeaders): Record<string, string> {
  return { 'content-type': String(headers['content-type'] ?? 'application/json'), authorization: String(headers.authorization ?? '') };
}

const server = createServer({ keepAliveTimeout: 65_000 }, async (req, res) => {
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
  try {
    const answer = await upstream.request({ method: 'POST', path: req.url ?? '/', headers: forwardable(req.headers), body: Buffer.concat(chunks) });
    const payload = Buffer.from(await answer.body.arrayBuffer());
    res.writeHead(answer.statusCode, { 'content-type': String(answer.headers['content-type'] ?? 'application/json'), 'content-length': payload.length });
    res.end(payload);
  } catch (error) {
    res.writeHead(502).end(String(error));
  }
});
server.listen(0, '127.0.0.1', () => reportReady((server.address() as AddressInfo).port));
