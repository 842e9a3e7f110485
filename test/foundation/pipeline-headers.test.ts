/**
 * The headers the gateway pipeline reads are in the spec, on every operation that runs requests
 * through it: a client generated from the spec can send each one. The chat operation is the
 * reference; the header names the pipeline's code reads must all be declared there.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { loadSpec } from '../../server/app.js';

const root = path.resolve(import.meta.dirname, '../..');
/** The modules that read the gateway's request headers. */
const HEADER_READERS = ['gateway/chat/gateway-headers.ts', 'gateway/resolve/cloud-headers.ts', 'gateway/resolve/provider-plan.ts', 'gateway/telemetry/trace-context.ts'];
/** Read by every operation (authentication, sessions), declared through security schemes instead. */
const NOT_PARAMETERS = new Set(['x-gw-api-key', 'x-gw-csrf-token']);

type Operation = { operationId: string; parameters?: Array<{ $ref?: string; in?: string; name?: string }>; 'x-gw-provider-auth'?: boolean };

function headerParameters(operation: Operation): Set<string> {
  const parameters = (loadSpec().components?.parameters ?? {}) as Record<string, { in: string; name: string }>;
  const names = new Set<string>();
  for (const parameter of operation.parameters ?? []) {
    const resolved = parameter.$ref ? parameters[parameter.$ref.split('/').pop()!]! : (parameter as { in: string; name: string });
    if (resolved.in === 'header') names.add(resolved.name.toLowerCase());
  }
  return names;
}

function operations(): Array<{ method: string; operation: Operation }> {
  return Object.values(loadSpec().paths ?? {}).flatMap((item) =>
    Object.entries(item as Record<string, unknown>)
      .filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
      .map(([method, operation]) => ({ method, operation: operation as Operation })),
  );
}

describe('pipeline headers in the spec', () => {
  const chat = operations().find(({ operation }) => operation.operationId === 'createChatCompletion')!.operation;
  const declared = headerParameters(chat);

  test('every header name the pipeline code reads is declared on the chat operation', () => {
    const read = new Set<string>();
    for (const file of HEADER_READERS) {
      for (const match of readFileSync(path.join(root, file), 'utf8').matchAll(/'((?:x-gw-|x-cloud2-)[a-z0-9-]+|traceparent)'/g)) read.add(match[1]!);
    }
    assert.ok(read.size > 20, `the readers name their headers (${read.size} found)`);
    const missing = [...read].filter((name) => !NOT_PARAMETERS.has(name) && !declared.has(name));
    assert.deepEqual(missing, []);
  });

  test('every operation that sends its request through the pipeline declares the same headers', () => {
    const pipelineOperations = operations().filter(({ method, operation }) => method === 'post' && operation['x-gw-provider-auth'] === true);
    assert.ok(pipelineOperations.length >= 4);
    for (const { operation } of pipelineOperations) {
      const missing = [...declared].filter((name) => !headerParameters(operation).has(name));
      assert.deepEqual(missing, [], `${operation.operationId} declares every pipeline header`);
    }
  });
});
