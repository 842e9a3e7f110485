import assert from 'node:assert/strict';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { readJsonBody } from '../../core/body.js';
import { ApiError } from '../../core/errors.js';

const LIMIT = 64;

/** Posts raw bytes (optionally chunked, so no content-length announces the size) and returns the status, headers and body. */
function post(port: number, body: string, options: { chunked?: boolean; type?: string } = {}): Promise<{ status: number; connection?: string; text: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { 'content-type': options.type ?? 'application/json' };
    if (!options.chunked) headers['content-length'] = String(Buffer.byteLength(body));
    const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/', headers }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, text }));
    });
    req.on('error', reject);
    if (options.chunked) for (let i = 0; i < body.length; i += 16) req.write(body.slice(i, i + 16));
    else req.write(body);
    req.end();
  });
}

describe('request bodies', () => {
  let server: Server;
  let port: number;
  before(async () => {
    server = createServer((req, res) => {
      readJsonBody(req, LIMIT).then(
        (parsed) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ parsed: parsed ?? null })),
        (error: ApiError) => res.writeHead(error.status, error.headers).end(error.code),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('parses JSON sent whole or in chunks', async () => {
    const sent = JSON.stringify({ a: 'b'.repeat(30) });
    for (const chunked of [false, true]) {
      const answer = await post(port, sent, { chunked });
      assert.equal(answer.status, 200);
      assert.deepEqual(JSON.parse(answer.text), { parsed: JSON.parse(sent) });
    }
  });

  it('a body over the limit is a 413 that closes the connection, whether or not its length was announced', async () => {
    const big = JSON.stringify({ a: 'b'.repeat(LIMIT * 4) });
    for (const chunked of [false, true]) {
      const answer = await post(port, big, { chunked });
      assert.equal(answer.status, 413, `chunked: ${chunked}`);
      assert.equal(answer.text, 'payload_too_large');
      if (chunked) assert.equal(answer.connection, 'close');
    }
  });

  it('a body that is not JSON, or not declared as JSON, is refused with its reason', async () => {
    assert.deepEqual(await post(port, '{"a":'), { status: 400, connection: 'keep-alive', text: 'invalid_json' });
    assert.equal((await post(port, '{"a":1}', { type: 'text/plain' })).text, 'unsupported_media_type');
  });
});
