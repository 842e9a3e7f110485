/**
 * readCappedBody (gateway/outbound/answer-cap.ts) reads an answer whole from stream events: the
 * chunks joined in order, past the bound an AnswerTooLargeError, a stream that fails or closes
 * before its end a rejection (never a promise left pending).
 */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, test } from 'node:test';
import { AnswerTooLargeError, readCappedBody } from '../../gateway/outbound/answer-cap.js';

describe('readCappedBody', () => {
  test('joins the chunks in order', async () => {
    const body = new PassThrough();
    const read = readCappedBody(body, {}, 100, 'http://upstream');
    body.write('{"a":');
    body.end('1}');
    assert.equal((await read).toString(), '{"a":1}');
  });

  test('past the bound: AnswerTooLargeError, the stream destroyed', async () => {
    const body = new PassThrough();
    const read = readCappedBody(body, {}, 4, 'http://upstream');
    body.write('12345');
    await assert.rejects(read, AnswerTooLargeError);
    assert.equal(body.destroyed, true);
  });

  test('a declared length past the bound fails before any read', async () => {
    const body = new PassThrough();
    await assert.rejects(readCappedBody(body, { 'content-length': '5' }, 4, 'http://upstream'), AnswerTooLargeError);
    assert.equal(body.destroyed, true);
  });

  test('a stream that fails, or closes before its end, rejects', async () => {
    const failing = new PassThrough();
    const failed = readCappedBody(failing, {}, 100, 'http://upstream');
    failing.destroy(new Error('socket reset'));
    await assert.rejects(failed, /socket reset/);
    const closing = new PassThrough();
    const closed = readCappedBody(closing, {}, 100, 'http://upstream');
    closing.write('{"a"');
    closing.destroy();
    await assert.rejects(closed, /closed its answer before the end/);
  });
});
