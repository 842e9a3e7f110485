import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import type { ConfigNode } from '../../gateway/routing/config-node.js';
import { matches } from '../../gateway/routing/conditions.js';
import { INHERITED_WHOLE, STRUCTURE_KEYS, inherit } from '../../gateway/routing/inheritance.js';
import type { Outcome } from '../../gateway/routing/outcome.js';
import { conditionalProblems, runStrategyTree, type Leaf } from '../../gateway/routing/strategy-tree.js';
import { projectRoot } from '../../core/project-root.js';
import { seededRandom } from '../helpers/seeded-random.js';

type Script = Record<string, Outcome<string>>;
const ok = (value: string): Outcome<string> => ({ ok: true, status: 200, value });
const fail = (status: number | null, reason: 'status' | 'timeout' | 'connection' | 'guardrail' = 'status'): Outcome<string> => ({
  ok: false,
  reason,
  status,
  error: new Error(`failed ${status}`),
});

/** Runs a tree whose leaves answer from a script keyed by leaf `name`; records the leaves called. */
async function run(config: ConfigNode, script: Script, options: { metadata?: Record<string, unknown>; params?: Record<string, unknown>; random?: () => number } = {}) {
  const called: Leaf[] = [];
  const result = await runStrategyTree<string>(config, {
    subject: { metadata: options.metadata ?? {}, params: options.params ?? {} },
    random: options.random ?? Math.random,
    runLeaf: async (leaf) => {
      called.push(leaf);
      return script[String(leaf.settings.provider)] ?? ok(String(leaf.settings.provider));
    },
  });
  return { result, called: called.map((leaf) => leaf.path) };
}

describe('strategy tree', () => {
  test('single uses the first target and reports its path', async () => {
    const { result, called } = await run({ strategy: { mode: 'single' }, targets: [{ provider: 'a' }, { provider: 'b' }] }, {});
    assert.deepEqual(called, ['0']);
    assert.equal(result.leaf.path, '0');
    assert.equal(result.outcome.ok && result.outcome.value, 'a');
  });

  test('fallback moves on after errors and stops at the first success', async () => {
    const config: ConfigNode = {
      strategy: { mode: 'fallback' },
      targets: [{ provider: 'a' }, { provider: 'b' }, { provider: 'c' }, { provider: 'd' }],
    };
    const { result, called } = await run(config, { a: fail(500), b: fail(null, 'connection'), c: ok('c') });
    assert.deepEqual(called, ['0', '1', '2']);
    assert.equal(result.leaf.path, '2');
    assert.deepEqual(
      result.steps.map((step) => [step.path, step.status]),
      [['0', 500], ['1', null], ['2', 200]],
    );
  });

  test('fallback with on_status_codes moves on only for the listed statuses', async () => {
    const config: ConfigNode = { strategy: { mode: 'fallback', on_status_codes: [429, 408] }, targets: [{ provider: 'a' }, { provider: 'b' }, { provider: 'c' }] };
    const listed = await run(config, { a: fail(429), b: fail(408, 'timeout') });
    assert.deepEqual(listed.called, ['0', '1', '2']);
    const unlisted = await run(config, { a: fail(400) });
    assert.deepEqual(unlisted.called, ['0']);
    assert.equal(unlisted.result.outcome.ok, false);
    assert.equal(!unlisted.result.outcome.ok && unlisted.result.outcome.status, 400);
  });

  test('a guardrail denial counts as a failure for fallback', async () => {
    const { result, called } = await run({ strategy: { mode: 'fallback' }, targets: [{ provider: 'a' }, { provider: 'b' }] }, { a: fail(446, 'guardrail') });
    assert.deepEqual(called, ['0', '1']);
    assert.equal(result.outcome.ok, true);
  });

  test('loadbalance splits by weight (weight defaults to 1): chi-square over 2000 seeded picks', async () => {
    const config: ConfigNode = { strategy: { mode: 'loadbalance' }, targets: [{ provider: 'a' }, { provider: 'b', weight: 2 }, { provider: 'c', weight: 5 }] };
    const random = seededRandom(42);
    const counts = [0, 0, 0];
    const N = 2000;
    for (let i = 0; i < N; i++) {
      const { result } = await run(config, {}, { random });
      counts[Number(result.leaf.path)]!++;
    }
    const chiSquare = (expectedShares: number[]) =>
      counts.reduce((sum, observed, index) => sum + (observed - N * expectedShares[index]!) ** 2 / (N * expectedShares[index]!), 0);
    // Two degrees of freedom: 13.82 is the 0.1% critical value.
    assert.ok(chiSquare([1 / 8, 2 / 8, 5 / 8]) < 13.82, `split ${counts} fits 1:2:5`);
    assert.ok(chiSquare([1 / 3, 1 / 3, 1 / 3]) > 13.82, `split ${counts} is not uniform`);
    const zero: ConfigNode = { strategy: { mode: 'loadbalance' }, targets: [{ provider: 'a', weight: 0 }, { provider: 'b', weight: 1 }] };
    for (let i = 0; i < 50; i++) assert.equal((await run(zero, {}, { random })).result.leaf.path, '1');
  });

  test('conditional picks the first matching condition, else the default', async () => {
    const config: ConfigNode = {
      strategy: {
        mode: 'conditional',
        conditions: [
          { query: { 'metadata.tier': { $eq: 'pro' }, 'params.temperature': { $lt: 0.5 } }, then: 'precise' },
          { query: { $or: [{ 'metadata.region': { $in: ['eu', 'uk'] } }, { 'params.model': { $regex: '^claude' } }] }, then: 'eu' },
        ],
        default: 'cheap',
      },
      targets: [
        { name: 'cheap', provider: 'cheap' },
        { name: 'precise', provider: 'precise' },
        { name: 'eu', provider: 'eu' },
      ],
    };
    assert.equal((await run(config, {}, { metadata: { tier: 'pro' }, params: { temperature: 0.2 } })).result.leaf.path, '1');
    assert.equal((await run(config, {}, { metadata: { tier: 'pro' }, params: { temperature: 0.9 } })).result.leaf.path, '0');
    assert.equal((await run(config, {}, { metadata: { region: 'uk' } })).result.leaf.path, '2');
    assert.equal((await run(config, {}, { params: { model: 'claude-3' } })).result.leaf.path, '2');
    const noDefault: ConfigNode = { ...config, strategy: { ...config.strategy!, default: undefined } };
    await assert.rejects(run(noDefault, {}), (error: { status?: number; param?: string }) => error.status === 400 && error.param === 'x-gw-config');
  });

  test('condition operators', () => {
    const subject = { metadata: { user: 'alice', count: '7', probe: `${'a'.repeat(24)}!` }, params: { temperature: 0.7, model: 'gpt-4o', n: 2 } };
    const cases: Array<[Record<string, unknown>, boolean]> = [
      [{ 'metadata.user': 'alice' }, true],
      [{ 'metadata.user': { $eq: 'bob' } }, false],
      [{ 'metadata.user': { $ne: 'bob' } }, true],
      [{ 'metadata.count': { $gt: 5 } }, true],
      [{ 'metadata.count': { $gte: 7 } }, true],
      [{ 'metadata.count': { $lt: 7 } }, false],
      [{ 'params.temperature': { $lte: 0.7 } }, true],
      [{ 'params.model': { $in: ['gpt-4o', 'gpt-4.1'] } }, true],
      [{ 'params.model': { $nin: ['gpt-4o'] } }, false],
      [{ 'params.model': { $regex: '^gpt-4' } }, true],
      // Exponential for a backtracking engine on a long enough value; RE2 answers in linear time.
      [{ 'metadata.probe': { $regex: '(a+)+$' } }, false],
      [{ 'metadata.probe': { $regex: '(a+)+!$' } }, true],
      [{ $and: [{ 'params.n': { $gte: 2 } }, { 'metadata.user': { $ne: 'alice' } }] }, false],
      [{ $or: [{ 'params.n': { $gt: 5 } }, { 'metadata.user': 'alice' }] }, true],
      [{ 'metadata.missing': { $gt: 1 } }, false],
    ];
    for (const [query, expected] of cases) assert.equal(matches(query, subject), expected, JSON.stringify(query));
  });

  test('nested to any depth: paths name the leaf and failures climb to the enclosing fallback', async () => {
    const config: ConfigNode = {
      strategy: { mode: 'fallback' },
      targets: [
        {
          strategy: { mode: 'fallback' },
          targets: [{ provider: 'a' }, { strategy: { mode: 'single' }, targets: [{ provider: 'b' }] }],
        },
        { strategy: { mode: 'loadbalance' }, targets: [{ strategy: { mode: 'single' }, targets: [{ provider: 'c' }] }] },
      ],
    };
    const { result, called } = await run(config, { a: fail(503), b: fail(502) });
    assert.deepEqual(called, ['0.0', '0.1.0', '1.0.0']);
    assert.equal(result.leaf.path, '1.0.0');
    assert.equal(result.outcome.ok && result.outcome.value, 'c');
  });

  test('children inherit override_params (merged), retry, cache, timeout, headers, guardrails and credentials', async () => {
    const parent: ConfigNode = {
      provider: 'openai',
      api_key: 'sk-parent',
      custom_host: 'http://127.0.0.1:1/v1',
      override_params: { temperature: 0.1, max_tokens: 5 },
      retry: { attempts: 2 },
      cache: { mode: 'simple', max_age: 60 },
      request_timeout: 1000,
      forward_headers: ['x-a'],
      input_guardrails: ['g-in'],
      output_guardrails: ['g-out'],
      strategy: { mode: 'fallback' },
      targets: [
        { override_params: { temperature: 0.9, top_p: 0.5 } },
        { provider: 'anthropic', api_key: 'sk-ant', retry: { attempts: 0 }, request_timeout: 50 },
        { custom_host: 'http://127.0.0.1:2/v1', targets: [{ override_params: { seed: 1 } }] },
      ],
    };
    const leaves: Leaf[] = [];
    await runStrategyTree(parent, {
      subject: { metadata: {}, params: {} },
      random: Math.random,
      runLeaf: async (leaf) => {
        leaves.push(leaf);
        return fail(500);
      },
    });
    const [first, second, third] = leaves.map((leaf) => leaf.settings);
    assert.deepEqual(first, {
      provider: 'openai',
      api_key: 'sk-parent',
      custom_host: 'http://127.0.0.1:1/v1',
      override_params: { temperature: 0.9, max_tokens: 5, top_p: 0.5 },
      retry: { attempts: 2 },
      cache: { mode: 'simple', max_age: 60 },
      request_timeout: 1000,
      forward_headers: ['x-a'],
      input_guardrails: ['g-in'],
      output_guardrails: ['g-out'],
    });
    // A child naming its own provider gets none of the parent's credentials or host.
    assert.equal(second!.provider, 'anthropic');
    assert.equal(second!.api_key, 'sk-ant');
    assert.equal(second!.custom_host, undefined);
    assert.deepEqual(second!.retry, { attempts: 0 });
    assert.equal(second!.request_timeout, 50);
    assert.deepEqual(second!.cache, { mode: 'simple', max_age: 60 });
    assert.deepEqual(second!.override_params, { temperature: 0.1, max_tokens: 5 });
    // Two levels down: overrides accumulate, a host set in between replaces the parent's.
    assert.equal(third!.api_key, 'sk-parent');
    assert.equal(third!.custom_host, 'http://127.0.0.1:2/v1');
    assert.deepEqual(third!.override_params, { temperature: 0.1, max_tokens: 5, seed: 1 });
    assert.equal(leaves[2]!.path, '2.0');
    assert.deepEqual(inherit({}, { name: 'x', weight: 3, provider: 'p' }), { provider: 'p' });
  });

  test('the written inheritance rule (spec description, routing doc table) names every key the code inherits or keeps', () => {
    const spec = JSON.parse(readFileSync(path.join(projectRoot(), 'generated/openapi.json'), 'utf8')) as { components: { schemas: Record<string, { description?: string }> } };
    const specText = spec.components.schemas.ConfigTarget!.description ?? '';
    const doc = readFileSync(path.join(projectRoot(), 'docs/routing-and-caching.md'), 'utf8');
    const docTable = doc.slice(doc.indexOf('What a child target inherits'), doc.indexOf('- Retry (`retry`)'));
    const keys = [...INHERITED_WHOLE, ...STRUCTURE_KEYS, 'override_params', 'provider', 'api_key', 'virtual_key', 'custom_host'];
    for (const key of keys) {
      assert.ok(specText.includes(`\`${key}\``), `the ConfigTarget description names ${key}`);
      assert.ok(docTable.includes(`\`${key}\``), `the routing doc's inheritance table names ${key}`);
    }
  });

  test('conditional names that match no target are reported by path', () => {
    const problems = conditionalProblems({
      targets: [{ strategy: { mode: 'conditional', conditions: [{ query: {}, then: 'nope' }], default: 'a' }, targets: [{ name: 'a', provider: 'a' }] }],
    });
    assert.deepEqual(problems, ['targets[0].strategy.conditions[0].then']);
  });
});

describe('routing config checks', () => {
  test('conditional names and queries are checked and the bad key is named', async () => {
    const { assertRoutable } = await import('../../gateway/routing/config-checks.js');
    const good: ConfigNode = {
      strategy: { mode: 'conditional', conditions: [{ query: { 'metadata.a': { $in: ['x'] } }, then: 'a' }], default: 'a' },
      targets: [{ name: 'a', provider: 'openai' }],
    };
    assert.doesNotThrow(() => assertRoutable(good, 'config'));
    const badName = { ...good, strategy: { ...good.strategy!, default: 'b' } };
    assert.throws(() => assertRoutable(badName, 'config'), (error: { param?: string }) => error.param === 'config.strategy.default');
    const badOperator = { ...good, strategy: { ...good.strategy!, conditions: [{ query: { 'metadata.a': { $like: 'x' } }, then: 'a' }] } };
    assert.throws(() => assertRoutable(badOperator, 'x-gw-config'), (error: { param?: string }) => error.param === 'x-gw-config.strategy.conditions[0].query.metadata.a.$like');
    const badField = { ...good, strategy: { ...good.strategy!, conditions: [{ query: { model: 'x' }, then: 'a' }] } };
    assert.throws(() => assertRoutable(badField, 'config'), (error: { param?: string }) => error.param === 'config.strategy.conditions[0].query.model');
  });
});
