import assert from 'node:assert/strict';
import { test } from 'node:test';
import { boundedMemo } from '../../core/bounded-memo.js';

test('a bounded memo computes each input once while it has room, starts over when full, and keeps only what `keep` allows', () => {
  const computed: string[] = [];
  const upper = boundedMemo((input) => {
    computed.push(input);
    return input.toUpperCase();
  }, 2, (result) => !result.includes('?'));
  assert.equal(upper('a'), 'A');
  assert.equal(upper('a'), 'A');
  assert.equal(upper('b?'), 'B?');
  assert.equal(upper('b?'), 'B?');
  assert.deepEqual(computed, ['a', 'b?', 'b?']);
  upper('c'); // two kept: full
  upper('d'); // starts over with d alone
  upper('a');
  upper('d');
  assert.deepEqual(computed, ['a', 'b?', 'b?', 'c', 'd', 'a']);
});
