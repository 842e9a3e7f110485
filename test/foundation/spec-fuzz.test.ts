/**
 * Spec-driven fuzzing: for every operation in the bundled spec, generated bad input (wrong types,
 * out-of-range numbers, huge and deeply nested bodies, malformed JSON and percent-encoding, wrong
 * content types, unknown fields, bad cursors and ids) sent with a valid admin key. No answer may
 * be a 5xx, and every 4xx carries the spec's error body (SCIM's or OAuth's on operations that speak those). Seeded and bounded, so a failure repeats.
 *
 * In-process by default. Pointed at a running gw (a staging deployment: the fuzzer's writes that
 * happen to be valid do create resources), it checks that deployment instead:
 *   GW_FUZZ_URL=https://gw.staging.example GW_FUZZ_API_KEY=<admin key> make fuzz
 * GW_FUZZ_SEED and GW_FUZZ_RUNS (cases per operation) change the inputs and their number.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import supertest from 'supertest';
import { loopbackOnly } from '../helpers/loopback-only.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const SEED = Number(process.env.GW_FUZZ_SEED ?? 20261124);
const RUNS = Number(process.env.GW_FUZZ_RUNS ?? 12);
const TARGET = process.env.GW_FUZZ_URL;

type Json = Record<string, unknown>;

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
}

interface Operation {
  id: string;
  method: string;
  path: string;
  parameters: Parameter[];
  bodyProperties: string[] | undefined;
  /** SCIM, OAuth, Anthropic, JSON-RPC and HTTP+JSON (A2A) operations answer errors in their protocol's shape (x-gw-error-format). */
  errorFormat: 'scim' | 'oauth' | 'anthropic' | 'jsonrpc' | 'a2a-rest' | 'a2a-rest-v03' | undefined;
}

const spec = JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../../generated/openapi.json'), 'utf8')) as Json;

function resolve<T>(value: T): T {
  const ref = (value as { $ref?: string } | undefined)?.$ref;
  if (!ref?.startsWith('#/')) return value;
  return resolve(ref.slice(2).split('/').reduce<unknown>((node, key) => (node as Json)[key], spec) as T);
}

function propertiesOf(schema: unknown, depth = 0): string[] {
  const resolved = resolve(schema) as Json | undefined;
  if (!resolved || depth > 5) return [];
  const own = Object.keys((resolved.properties as Json | undefined) ?? {});
  const composed = ['allOf', 'oneOf', 'anyOf'].flatMap((key) => ((resolved[key] as unknown[] | undefined) ?? []).flatMap((part) => propertiesOf(part, depth + 1)));
  return [...new Set([...own, ...composed])];
}

function operations(): Operation[] {
  const found: Operation[] = [];
  for (const [route, item] of Object.entries(spec.paths as Json)) {
    const shared = ((item as Json).parameters as unknown[] | undefined) ?? [];
    for (const [method, raw] of Object.entries(item as Json)) {
      const operation = raw as Json;
      if (typeof operation !== 'object' || !operation.operationId) continue;
      const parameters = [...shared, ...((operation.parameters as unknown[] | undefined) ?? [])].map((p) => resolve(p) as Parameter);
      const content = (resolve(operation.requestBody) as Json | undefined)?.content as Json | undefined;
      const json = content?.['application/json'] as Json | undefined;
      found.push({
        id: operation.operationId as string,
        method,
        path: route,
        parameters,
        bodyProperties: content ? propertiesOf(json?.schema ?? Object.values(content)[0]) : undefined,
        errorFormat: operation['x-gw-error-format'] as Operation['errorFormat'],
      });
    }
  }
  return found;
}

/** Path segments and query values that are wrong in every way a client gets them wrong. */
const badText = fc.oneof(
  fc.string({ maxLength: 40 }).map(encodeURIComponent),
  fc.constantFrom('%ff%fe', '%zz', '%', '%e0%a4%a', '%00', '..%2f..%2fetc', '-1', '0', '1e309', 'NaN', 'true', 'null', '[]', '{}'),
  fc.constantFrom('x'.repeat(300), 'x'.repeat(5000), '9'.repeat(40)),
  fc.uuid(),
  fc.base64String({ maxLength: 80 }).map(encodeURIComponent),
);

const anyJson = fc.jsonValue({ maxDepth: 4 });

function deeplyNested(depth: number): string {
  return '['.repeat(depth) + ']'.repeat(depth);
}

type BodyCase = { contentType: string; payload: string | Buffer } | undefined;

function bodyCases(properties: string[]): fc.Arbitrary<BodyCase> {
  const wrongTypes = properties.length
    ? fc.dictionary(fc.constantFrom(...properties), anyJson, { maxKeys: properties.length }).map((body) => JSON.stringify(body))
    : anyJson.map((body) => JSON.stringify(body));
  const withUnknown = fc
    .tuple(fc.dictionary(fc.constantFrom(...(properties.length ? properties : ['name'])), anyJson), fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), anyJson, { minKeys: 1, maxKeys: 3 }))
    .map(([known, unknown]) => JSON.stringify({ ...unknown, ...known }));
  const json = (payload: fc.Arbitrary<string | Buffer>) => payload.map((p) => ({ contentType: 'application/json', payload: p }));
  return fc.oneof(
    json(wrongTypes),
    json(withUnknown),
    json(anyJson.map((body) => JSON.stringify(body))),
    json(fc.constantFrom('{', '{"a":', 'nul', '[1,2', '"unterminated', '{"a":1}}', '\u0000', '')),
    json(fc.constantFrom(Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]))),
    json(fc.constantFrom(deeplyNested(5_000), JSON.stringify({ a: 'x'.repeat(2 * 1024 * 1024) }), JSON.stringify({ [properties[0] ?? 'name']: 'y'.repeat(300_000) }))),
    json(fc.constantFrom(JSON.stringify(Object.fromEntries(properties.map((p) => [p, -1e308]))), JSON.stringify(Object.fromEntries(properties.map((p) => [p, 2 ** 64]))))),
    fc.constantFrom<BodyCase>(
      { contentType: 'text/plain', payload: '{"name":"x"}' },
      { contentType: 'application/xml', payload: '<a/>' },
      { contentType: 'application/x-www-form-urlencoded', payload: 'a=1&b=%ff' },
      { contentType: 'multipart/form-data; boundary=x', payload: '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--x--' },
      undefined,
    ),
  );
}

/** No 5xx, and a 4xx carries the error body of the operation's protocol. */
function assertAnswer(operation: Operation, where: string, response: supertest.Response): void {
  // A HEAD answer has no body (supertest gives no text) to carry an error.
  if (operation.method === 'head') return assert.ok(response.status < 500, where);
  assert.ok(response.status < 500, `${where}: ${response.text.slice(0, 300)}`);
  if (response.status >= 400 && operation.errorFormat === 'anthropic') {
    const body = response.body as { type?: unknown; error?: { type?: unknown; message?: unknown } };
    assert.equal(body.type, 'error', `${where} without the Anthropic error body: ${response.text.slice(0, 300)}`);
    assert.equal(typeof body.error?.type, 'string', `${where}: error.type`);
    assert.equal(typeof body.error?.message, 'string', `${where}: error.message`);
  } else if (response.status >= 400 && operation.errorFormat === 'scim') {
    const body = response.body as { schemas?: string[]; status?: unknown };
    assert.deepEqual(body.schemas, ['urn:ietf:params:scim:api:messages:2.0:Error'], `${where} without the SCIM error body: ${response.text.slice(0, 300)}`);
    assert.equal(body.status, String(response.status), `${where}: SCIM status`);
  } else if (response.status >= 400 && operation.errorFormat === 'jsonrpc') {
    const body = response.body as { jsonrpc?: unknown; error?: { code?: unknown; message?: unknown } };
    assert.equal(body.jsonrpc, '2.0', `${where} without the JSON-RPC error body: ${response.text.slice(0, 300)}`);
    assert.ok(Number.isInteger(body.error?.code), `${where}: error.code`);
    assert.equal(typeof body.error?.message, 'string', `${where}: error.message`);
  } else if (response.status >= 400 && operation.errorFormat === 'a2a-rest') {
    const body = response.body as { error?: { code?: unknown; status?: unknown; message?: unknown; details?: unknown } };
    assert.equal(body.error?.code, response.status, `${where} without the A2A HTTP+JSON error body: ${response.text.slice(0, 300)}`);
    assert.equal(typeof body.error?.status, 'string', `${where}: error.status`);
    assert.equal(typeof body.error?.message, 'string', `${where}: error.message`);
    assert.ok(Array.isArray(body.error?.details), `${where}: error.details`);
  } else if (response.status >= 400 && operation.errorFormat === 'a2a-rest-v03') {
    const body = response.body as { code?: unknown; message?: unknown; error?: unknown };
    assert.ok(Number.isInteger(body.code), `${where} without the A2A 0.3 HTTP+JSON error body: ${response.text.slice(0, 300)}`);
    assert.equal(typeof body.message, 'string', `${where}: message`);
    assert.equal(body.error, undefined, `${where}: no error wrapper`);
  } else if (response.status >= 400 && operation.errorFormat === 'oauth') {
    assert.equal(typeof (response.body as { error?: unknown }).error, 'string', `${where} without the OAuth error body: ${response.text.slice(0, 300)}`);
  } else if (response.status >= 400) {
    const error = (response.body as { error?: Json }).error;
    assert.ok(error, `${where} without the error body: ${response.text.slice(0, 300)}`);
    for (const field of ['code', 'message', 'type']) assert.equal(typeof error[field], 'string', `${where}: error.${field}`);
    assert.ok(!('param' in error) || typeof error.param === 'string', `${where}: error.param is a string when present`);
  }
}

const FILE_PART = 'Content-Disposition: form-data; name="file"; filename="input.jsonl"\r\nContent-Type: application/jsonl\r\n\r\n';
const PURPOSE_PART = 'Content-Disposition: form-data; name="purpose"\r\n\r\nbatch\r\n';
const MODEL_PART = 'Content-Disposition: form-data; name="model"\r\n\r\n';

/**
 * Multipart bodies cut short or malformed the ways a broken client or a hostile one sends them.
 * A form that ends inside a part fails that part's stream as well as the parser: a stream whose
 * error nobody heard ended the whole process once (a 67-byte upload to /v1/files).
 */
const MALFORMED_MULTIPART: Array<{ name: string; contentType: string; payload: string }> = [
  { name: 'ends inside the file part', contentType: 'multipart/form-data; boundary=x', payload: `--x\r\n${FILE_PART}{"custom_id":"a"}` },
  { name: 'ends inside the file part after purpose', contentType: 'multipart/form-data; boundary=x', payload: `--x\r\n${PURPOSE_PART}--x\r\n${FILE_PART}{"custom_id":"a"}\n{"cus` },
  { name: 'ends inside a part\'s headers', contentType: 'multipart/form-data; boundary=x', payload: `--x\r\n${PURPOSE_PART}--x\r\nContent-Disposition: form-data; name="file"; filen` },
  { name: 'ends inside the model field', contentType: 'multipart/form-data; boundary=x', payload: `--x\r\n${MODEL_PART}@openai/whisp` },
  { name: 'ends inside a file after the model', contentType: 'multipart/form-data; boundary=x', payload: `--x\r\n${MODEL_PART}whisper-1\r\n--x\r\n${FILE_PART}RIFF` },
  { name: 'a file before the model, cut short', contentType: 'multipart/form-data; boundary=x', payload: `--x\r\n${FILE_PART}RIFF....WAVE` },
  { name: 'no boundary in the content type', contentType: 'multipart/form-data', payload: `--x\r\n${PURPOSE_PART}--x--` },
  { name: 'another boundary than declared', contentType: 'multipart/form-data; boundary=y', payload: `--x\r\n${PURPOSE_PART}--x\r\n${FILE_PART}a\r\n--x--` },
  { name: 'a part without Content-Disposition', contentType: 'multipart/form-data; boundary=x', payload: '--x\r\nContent-Type: text/plain\r\n\r\nabc\r\n--x--\r\n' },
  { name: 'a header line that is not a header', contentType: 'multipart/form-data; boundary=x', payload: '--x\r\nnot a header\r\n\r\nabc\r\n--x--\r\n' },
  { name: 'headers past the parser\'s limit', contentType: 'multipart/form-data; boundary=x', payload: `--x\r\nContent-Disposition: form-data; name="${'a'.repeat(100_000)}"\r\n\r\n1\r\n--x--\r\n` },
  { name: 'only a preamble', contentType: 'multipart/form-data; boundary=x', payload: 'no parts here' },
  { name: 'empty', contentType: 'multipart/form-data; boundary=x', payload: '' },
];

interface Case {
  path: string;
  body: BodyCase;
}

function caseFor(operation: Operation): fc.Arbitrary<Case> {
  const pathNames = operation.parameters.filter((p) => p.in === 'path').map((p) => p.name);
  const queryNames = operation.parameters.filter((p) => p.in === 'query').map((p) => p.name);
  const queryKeys = fc.constantFrom(...queryNames, 'unknown_param', 'limit', 'cursor');
  return fc.record({
    pathValues: fc.tuple(...pathNames.map(() => badText)),
    query: fc.dictionary(queryKeys, badText, { maxKeys: 4 }),
    body: bodyCases(operation.bodyProperties ?? []),
  }).map(({ pathValues, query, body }) => {
    let url = operation.path;
    pathNames.forEach((name, i) => (url = url.replace(`{${name}}`, pathValues[i]!)));
    const search = Object.entries(query).map(([key, value]) => `${encodeURIComponent(key)}=${value}`).join('&');
    return { path: search ? `${url}?${search}` : url, body };
  });
}

describe('spec fuzzing: bad input never answers 5xx, and every 4xx has the error body', () => {
  let app: TestApp | undefined;
  let http: ReturnType<typeof supertest>;
  let key: string;
  let restoreNetwork = () => undefined as void;

  before(async () => {
    if (TARGET) {
      http = supertest(TARGET);
      key = process.env.GW_FUZZ_API_KEY ?? '';
      assert.ok(key, 'GW_FUZZ_API_KEY is needed with GW_FUZZ_URL');
    } else {
      // The in-process gw may call out to whatever a generated value names: only loopback answers.
      restoreNetwork = loopbackOnly();
      app = await startTestApp();
      http = app.http;
      key = app.adminKey;
    }
  });
  after(async () => {
    await app?.close();
    restoreNetwork();
  });

  for (const operation of operations()) {
    test(`${operation.id} (${operation.method.toUpperCase()} ${operation.path})`, async () => {
      await fc.assert(
        fc.asyncProperty(caseFor(operation), async ({ path: url, body }) => {
          let request = http[operation.method as 'get'](url).set('x-gw-api-key', key);
          if (body) request = request.set('content-type', body.contentType).send(body.payload);
          const response = await request;
          const where = `${operation.method.toUpperCase()} ${url.slice(0, 200)} (${body?.contentType ?? 'no body'}) answered ${response.status}`;
          // An empty HTTP+JSON route (not a valid one) makes a POST to the agent's own URL: the JSON-RPC door's.
          const jsonRpcDoor = operation.errorFormat === 'a2a-rest' && operation.method === 'post' && /^\/a2a\/[^/?]*\/?(\?|$)/.test(url);
          assertAnswer(jsonRpcDoor ? { ...operation, errorFormat: 'jsonrpc' } : operation, where, response);
        }),
        { seed: SEED, numRuns: RUNS, endOnFailure: true },
      );
    });
  }

  for (const operation of operations().filter((op) => ['post', 'put', 'patch'].includes(op.method))) {
    test(`${operation.id} (${operation.method.toUpperCase()} ${operation.path}): truncated and malformed multipart bodies`, async () => {
      const url = operation.path.replace(/\{[^}]+\}/g, 'fuzz');
      for (const body of MALFORMED_MULTIPART) {
        const response = await http[operation.method as 'post'](url).set('x-gw-api-key', key).set('content-type', body.contentType).send(body.payload);
        assertAnswer(operation, `${operation.method.toUpperCase()} ${url} (multipart ${body.name}) answered ${response.status}`, response);
      }
    });
  }
});
