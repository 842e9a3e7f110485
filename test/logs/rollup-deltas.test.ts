import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addInto, keyOf, MEASURES, rollupDeltas, type RollupDelta, type RollupFact } from '../../store/rollups/rollup-deltas.js';
import { seededRandom } from '../helpers/seeded-random.js';

function pick<T>(random: () => number, values: readonly T[]): T {
  return values[Math.floor(random() * values.length)]!;
}

const START = Date.UTC(2026, 11, 4, 10, 14, 30);

function randomFact(random: () => number): RollupFact {
  const cacheHit = random() < 0.2;
  return {
    organisation_id: pick(random, ['org-a', 'org-b']),
    workspace_id: pick(random, ['ws-1', 'ws-2', 'ws-3']),
    // Across minute, quarter-hour and hour edges.
    created_at: START + Math.floor(random() * 50 * 60_000),
    latency_ms: Math.floor(random() * 3000),
    cost: random() / 1000,
    cache_hit: cacheHit,
    is_error: random() < 0.1,
    rescued: random() < 0.05,
    cost_unpriced: random() < 0.05,
    prompt_tokens: Math.floor(random() * 500),
    completion_tokens: Math.floor(random() * 500),
    total_tokens: Math.floor(random() * 1000),
    metadata: random() < 0.7 ? { env: pick(random, ['prod', 'dev', 'x'.repeat(300)]), team: pick(random, ['a', 'b']) } : null,
    api_key_id: pick(random, ['key-1', 'key-2', null]),
    provider: pick(random, ['openai', 'anthropic']),
    model: pick(random, ['m1', 'm2']),
    status: pick(random, [200, 429, 500]),
    cache_status: cacheHit ? 'HIT' : 'MISS',
    endpoint: 'chat.completions',
    user_id: pick(random, ['u1', null]),
    environment: pick(random, ['prod', null]),
    end_organisation: null,
    prompt_id: pick(random, [null, 'p1']),
    prompt_version: pick(random, [null, 1, 2]),
    prompt_label: null,
  };
}

/** What the batch must come to: each fact's own deltas, summed per rollup row. */
function oneByOne(facts: readonly RollupFact[], sign: 1 | -1, keys: ReadonlyMap<string, number>): Map<string, RollupDelta> {
  const sums = new Map<string, RollupDelta>();
  for (const fact of facts) {
    for (const delta of rollupDeltas([fact], sign, keys)) {
      const seen = sums.get(keyOf(delta));
      if (seen) addInto(seen, delta);
      else sums.set(keyOf(delta), delta);
    }
  }
  return sums;
}

test('a batch rolls up to the sum of its rows rolled up one by one (rows alike are summed before the sets fan out)', () => {
  const random = seededRandom(37);
  // Few routes, each with twins that differ in one dimension only, over six minutes: groups of many rows.
  const routes = Array.from({ length: 6 }, () => randomFact(random)).flatMap((route) => [
    route,
    { ...route, api_key_id: route.api_key_id === 'key-9' ? 'key-8' : 'key-9' },
    { ...route, prompt_version: route.prompt_version === 7 ? 8 : 7 },
    { ...route, metadata: { ...route.metadata, team: route.metadata?.team === 'c' ? 'd' : 'c' } },
  ]);
  const facts = Array.from({ length: 600 }, () => {
    const measures = randomFact(random);
    return { ...pick(random, routes), created_at: START + 22 * 60_000 + Math.floor(random() * 6 * 60_000), latency_ms: measures.latency_ms, cost: measures.cost, is_error: measures.is_error, rescued: measures.rescued, cost_unpriced: measures.cost_unpriced, prompt_tokens: measures.prompt_tokens };
  });
  // `team` starts counting half-way through the batch's time range: the same minute holds rows before and after.
  const keys = new Map([['env', 0], ['team', START + 25 * 60_000 + 20_000]]);
  for (const sign of [1, -1] as const) {
    const batch = rollupDeltas(facts, sign, keys);
    const expected = oneByOne(facts, sign, keys);
    assert.equal(batch.length, expected.size);
    assert.ok(batch.length < facts.length * 26, 'the batch shares rollup rows');
    for (const delta of batch) {
      const want = expected.get(keyOf(delta));
      assert.ok(want, `unexpected rollup row ${keyOf(delta)}`);
      for (const measure of MEASURES) {
        if (measure === 'cost' || measure === 'cache_savings') assert.ok(Math.abs(delta[measure] - want[measure]) < 1e-9, `${measure} of ${keyOf(delta)}`);
        else assert.equal(delta[measure], want[measure], `${measure} of ${keyOf(delta)}`);
      }
      assert.deepEqual(new Map([...delta.latency].filter(([, n]) => n !== 0)), new Map([...want.latency].filter(([, n]) => n !== 0)));
      assert.equal(delta.metadata_value, want.metadata_value);
      assert.equal(delta.model, want.model);
    }
  }
});

test('rows of one route in one minute make as many rollup rows as a single row does', () => {
  const random = seededRandom(5);
  const one = randomFact(random);
  const minuteStart = one.created_at - (one.created_at % 60_000);
  const alike = Array.from({ length: 100 }, (_, i) => ({ ...one, created_at: minuteStart + (i % 60) * 1000, latency_ms: i * 7, cost: i / 10_000 }));
  const batch = rollupDeltas(alike, 1);
  assert.equal(batch.length, rollupDeltas([one], 1).length);
  const workspaceMinute = batch.find((delta) => delta.dimension_set === 'workspace' && delta.grain === 'minute' && delta.workspace_id === one.workspace_id)!;
  assert.equal(workspaceMinute.requests, 100);
  assert.equal(workspaceMinute.latency_sum, alike.reduce((sum, fact) => sum + fact.latency_ms, 0));
  assert.equal([...workspaceMinute.latency.values()].reduce((a, b) => a + b, 0), 100);
});
