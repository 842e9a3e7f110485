import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { baseRevision, overBudget, parseBudget, raisesWithoutReason, type Budget } from '../../scripts/bench/instruction-budget.js';

// CI's CPU budget rules (make bench-instructions-check), held without valgrind.

const run = { warmupCalls: 200, countedCalls: 100 };

function budget(instructions: number, reason = 'measured 2026-12-03'): Budget {
  return { tolerance: 0.03, ...run, operations: { chat: { instructions, reason } } };
}

test('an operation more than 3% over its budget fails; within 3% it passes', () => {
  assert.deepEqual(overBudget(budget(1_000_000), { chat: 1_030_000 }, run), [], 'exactly 3% over is within the tolerance');
  assert.deepEqual(overBudget(budget(1_000_000), { chat: 900_000 }, run), []);
  const failures = overBudget(budget(1_000_000), { chat: 1_031_000 }, run);
  assert.equal(failures.length, 1);
  assert.match(failures[0]!, /^chat: 1031000 instructions per call, over its budget 1000000 by more than 3%/);
});

test('an operation the file has no budget for fails, and so does a run with other warm-up or counted numbers', () => {
  assert.deepEqual(overBudget(budget(1_000_000), { 'chat cache hit': 1 }, run), ['chat cache hit: no budget in the file']);
  const failures = overBudget(budget(1_000_000), { chat: 1_000_000 }, { warmupCalls: 400, countedCalls: 100 });
  assert.equal(failures.length, 1);
  assert.match(failures[0]!, /measured with 200 warm-up and 100 counted calls, this run 400 and 100/);
});

test('a raised budget needs a new reason; a raise with one, a lowered budget and a new operation pass', () => {
  const before = budget(1_000_000, 'measured 2026-12-03');
  assert.deepEqual(raisesWithoutReason(before, budget(1_100_000, 'measured 2026-12-03')), ['chat: budget raised from 1000000 to 1100000 without a new reason']);
  assert.deepEqual(raisesWithoutReason(before, budget(1_100_000, '  measured 2026-12-03 ')), ['chat: budget raised from 1000000 to 1100000 without a new reason'], 'white space is no reason');
  assert.deepEqual(raisesWithoutReason(before, budget(1_100_000, 'guardrails now run on every chat call')), []);
  assert.deepEqual(raisesWithoutReason(before, budget(900_000, 'measured 2026-12-03')), []);
  const added: Budget = { ...before, operations: { ...before.operations, embeddings: { instructions: 5, reason: 'first measured' } } };
  assert.deepEqual(raisesWithoutReason(before, added), []);
});

test('the budget file is compared with HEAD when edited, with the commit before in a clean clone, and with nothing in a single-commit clone', () => {
  assert.equal(baseRevision(true, true), 'HEAD');
  assert.equal(baseRevision(true, false), 'HEAD');
  assert.equal(baseRevision(false, true), 'HEAD~1');
  assert.equal(baseRevision(false, false), undefined);
});

test('the committed budget file parses and budgets every operation with a reason', () => {
  const file = parseBudget(readFileSync(new URL('../../scripts/instruction-budget.json', import.meta.url), 'utf8'));
  assert.equal(file.tolerance, 0.03);
  assert.deepEqual(Object.keys(file.operations).sort(), ['chat', 'chat cache hit', 'chat streamed', 'embeddings', 'mcp tools/call', 'prompt completion', 'responses']);
  for (const [name, { instructions, reason }] of Object.entries(file.operations)) {
    assert.ok(Number.isInteger(instructions) && instructions > 0, `${name}: instructions`);
    assert.ok(reason.trim().length > 0, `${name}: reason`);
  }
});
