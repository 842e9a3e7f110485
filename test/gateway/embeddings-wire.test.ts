/**
 * Embeddings on the OpenAI wire are forwarded as the upstream wrote them: the answer, a cache hit
 * of it, and its base64 form come from the upstream's own text (formatted as OpenAI formats it,
 * numbers as it writes them), and the request log keeps usage, cost and each vector's size but
 * not the vectors. An answer that needs normalising (items out of order) still gets it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ConfigNode } from '../../gateway/routing/config-node.js';
import { fullEngines } from '../helpers/engines.js';
import { logsSettled, startGatewayApp, type GatewayApp } from '../helpers/gateway-app.js';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-server.js';

const VECTOR = [-0.0069292835, 1e-5, 0.1];

// Pretty-printed with numbers written as no JSON.stringify writes them (1e-05, 0.10): any
// parse-and-serialise on the way would show in the bytes.
const WIRE_TEXT = `{
  "object": "list",
  "data": [
    {
      "object": "embedding",
      "index": 0,
      "embedding": [
        -0.0069292835,
        1e-05,
        0.10
      ]
    }
  ],
  "model": "text-embedding-3-small",
  "usage": {
    "prompt_tokens": 2,
    "total_tokens": 2
  }
}
`;

// Items out of index order: gw sorts them, so this answer cannot be forwarded as it is.
const UNSORTED = {
  object: 'list',
  data: [
    { object: 'embedding', index: 1, embedding: [2, 2] },
    { object: 'embedding', index: 0, embedding: [1, 1] },
  ],
  model: 'text-embedding-3-small',
  usage: { prompt_tokens: 4, total_tokens: 4 },
};

const SUMMARY = { object: 'list', data: [{ object: 'embedding', index: 0, dimensions: 3 }], model: 'text-embedding-3-small', usage: { prompt_tokens: 2, total_tokens: 2 } };

for (const engine of fullEngines()) {
  describe(`embeddings forwarded as the OpenAI wire sent them (${engine.name})`, () => {
    let gw: GatewayApp;
    let upstream: RecordingServer;
    before(async () => {
      gw = await startGatewayApp({ engine });
      upstream = await startRecordingServer((request, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(request.body?.input === 'unsorted' ? JSON.stringify(UNSORTED) : WIRE_TEXT);
      });
    });
    after(async () => {
      await gw.close();
      await upstream.close();
    });

    const embed = (body: Record<string, unknown>, headers: Record<string, string> = { 'x-gw-provider': 'openai', 'x-gw-custom-host': `${upstream.url}/v1` }) =>
      fetch(`${gw.app.url}/v1/embeddings`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer sk-upstream', 'x-gw-api-key': gw.app.adminKey, ...headers },
        body: JSON.stringify({ model: 'text-embedding-3-small', ...body }),
      });

    it('answers the upstream bytes as they are, and logs usage and cost with each vector size, not the vector', async () => {
      const before = gw.logs.length;
      const response = await embed({ input: 'hi', encoding_format: 'float' });
      assert.equal(response.status, 200);
      assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
      assert.equal(await response.text(), WIRE_TEXT);
      assert.equal(upstream.received.at(-1)!.body!.encoding_format, 'float');

      const entry = (await logsSettled(gw, before + 1)).at(-1)!;
      assert.equal(entry.endpoint, 'embeddings');
      assert.equal(entry.prompt_tokens, 2);
      assert.equal(entry.total_tokens, 2);
      assert.ok(entry.cost > 0, 'text-embedding-3-small is priced');
      await gw.app.services.requestLogs.flush();
      const stored = await gw.app.http.get(`/v1/logs/${entry.id}`).set({ 'x-gw-api-key': gw.app.adminKey });
      assert.equal(stored.status, 200, JSON.stringify(stored.body));
      assert.deepEqual(stored.body.response_body, SUMMARY);
      assert.equal(stored.body.prompt_tokens, 2);
      assert.ok(stored.body.cost > 0);
    });

    it('a cache hit answers the very bytes the miss answered', async () => {
      const config: ConfigNode = { provider: 'openai', api_key: 'sk', custom_host: `${upstream.url}/v1`, cache: { mode: 'simple', max_age: 60 } };
      const headers = { 'x-gw-config': JSON.stringify(config) };
      const calls = upstream.received.length;
      const miss = await embed({ input: 'cache me', encoding_format: 'float' }, headers);
      const missText = await miss.text();
      const hit = await embed({ input: 'cache me', encoding_format: 'float' }, headers);
      assert.equal(miss.headers.get('x-gw-cache-status'), 'MISS');
      assert.equal(hit.headers.get('x-gw-cache-status'), 'HIT');
      assert.equal(missText, WIRE_TEXT);
      assert.equal(await hit.text(), WIRE_TEXT);
      assert.equal(upstream.received.length, calls + 1);
      const before = gw.logs.length;
      await embed({ input: 'cache me', encoding_format: 'float' }, headers);
      assert.deepEqual((await logsSettled(gw, before + 1)).at(-1)!.response_body, SUMMARY, 'a hit logs the summary too');
    });

    it('base64 is the little-endian float32 bytes of the upstream floats', async () => {
      const response = await embed({ input: 'hi', encoding_format: 'base64' });
      const body = (await response.json()) as { data: Array<{ index: number; embedding: string }>; usage: unknown };
      const expected = Buffer.alloc(VECTOR.length * 4);
      VECTOR.forEach((value, index) => expected.writeFloatLE(value, index * 4));
      assert.equal(body.data[0]!.embedding, expected.toString('base64'));
      assert.deepEqual(body.usage, SUMMARY.usage);
    });

    it('an answer that needs normalising (items out of order) is still normalised, and logged without vectors', async () => {
      const before = gw.logs.length;
      const response = await embed({ input: 'unsorted', encoding_format: 'float' });
      assert.deepEqual(await response.json(), { ...UNSORTED, data: [UNSORTED.data[1], UNSORTED.data[0]] });
      const entry = (await logsSettled(gw, before + 1)).at(-1)!;
      assert.deepEqual(entry.response_body, {
        object: 'list',
        data: [
          { object: 'embedding', index: 0, dimensions: 2 },
          { object: 'embedding', index: 1, dimensions: 2 },
        ],
        model: 'text-embedding-3-small',
        usage: { prompt_tokens: 4, total_tokens: 4 },
      });
    });
  });
}
