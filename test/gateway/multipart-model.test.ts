/** The pass-through's multipart model field: found as the body streams past, and rewritten in place in held bytes. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { boundaryOf, MultipartModelScanner, replaceModelField } from '../../gateway/proxy/multipart-model.js';

const BOUNDARY = '----gw-test-7f3a';

function form(parts: Array<{ name: string; filename?: string; value: string }>): Buffer {
  const text = parts
    .map((part) => {
      const disposition = `form-data; name="${part.name}"${part.filename ? `; filename="${part.filename}"` : ''}`;
      return `--${BOUNDARY}\r\ncontent-disposition: ${disposition}\r\n${part.filename ? 'content-type: application/octet-stream\r\n' : ''}\r\n${part.value}\r\n`;
    })
    .join('');
  return Buffer.from(`${text}--${BOUNDARY}--\r\n`);
}

describe('multipart model field', () => {
  it('reads the boundary, quoted or not', () => {
    assert.equal(boundaryOf(`multipart/form-data; boundary=${BOUNDARY}`), BOUNDARY);
    assert.equal(boundaryOf(`multipart/form-data; charset=utf-8; boundary="${BOUNDARY}"`), BOUNDARY);
    assert.equal(boundaryOf('multipart/form-data'), undefined);
  });

  it('rewrites the model part only: a file named "model" and other fields are left as they are', () => {
    const body = form([
      { name: 'file', filename: 'model', value: '@lab/not-this' },
      { name: 'prompt', value: 'model' },
      { name: 'model', value: '@lab/gpt-image-1' },
    ]);
    const rewritten = replaceModelField(body, BOUNDARY, 'gpt-image-1')!;
    assert.equal(rewritten.length, body.length - '@lab/'.length);
    assert.equal(rewritten.toString('latin1'), body.toString('latin1').replace('\r\n\r\n@lab/gpt-image-1\r\n', '\r\n\r\ngpt-image-1\r\n'));
    assert.ok(rewritten.includes('@lab/not-this'), 'the file content is untouched');
  });

  it('gives up when the model part is not wholly in the held bytes', () => {
    const body = form([{ name: 'model', value: '@lab/whisper-1' }]);
    const cut = body.subarray(0, body.indexOf('whisper') + 3);
    assert.equal(replaceModelField(cut, BOUNDARY, 'whisper-1'), undefined);
  });

  it('the scanner finds the model after a file, fed in small chunks, and settles when the body ends without one', async () => {
    const body = form([
      { name: 'file', filename: 'a.wav', value: 'x'.repeat(10_000) },
      { name: 'model', value: '@lab/gpt-4o-transcribe' },
    ]);
    const scanner = MultipartModelScanner.for(`multipart/form-data; boundary=${BOUNDARY}`)!;
    for (let at = 0; at < body.length; at += 333) scanner.write(body.subarray(at, at + 333));
    scanner.end();
    await new Promise<void>((resolve) => scanner.onDone(resolve));
    assert.equal(scanner.model, '@lab/gpt-4o-transcribe');

    const without = MultipartModelScanner.for(`multipart/form-data; boundary=${BOUNDARY}`)!;
    without.write(form([{ name: 'prompt', value: 'hi' }]));
    without.end();
    await new Promise<void>((resolve) => without.onDone(resolve));
    assert.equal(without.model, undefined);
    assert.equal(MultipartModelScanner.for('multipart/form-data'), undefined, 'no boundary: no scan');
  });
});
