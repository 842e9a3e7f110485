import assert from 'node:assert/strict';
import { test } from 'node:test';
import { timeOrderedId } from '../../store/time-ordered-id.js';

test('time-ordered ids are UUIDv7: the time in the first 48 bits, version 7, RFC variant, random rest', () => {
  const at = Date.UTC(2026, 10, 23, 12, 0, 0, 123);
  const id = timeOrderedId(at);
  assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.equal(parseInt(id.slice(0, 8) + id.slice(9, 13), 16), at);
  assert.notEqual(timeOrderedId(at), id, 'the same millisecond still gives distinct ids');
  const later = timeOrderedId(at + 1);
  assert.ok(later > id, 'ids sort by time as text, the order the primary-key index receives them in');
});
