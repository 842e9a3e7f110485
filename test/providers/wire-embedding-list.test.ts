/**
 * Reading an OpenAI embeddings answer without parsing its vectors: what is forwarded as it came
 * (with each vector's size counted), and what is left to the ordinary parse.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loggedEmbeddingList, readWireEmbeddingList } from '../../gateway/providers/wire-embedding-list.js';

const list = (vectors: number[][], extra: Record<string, unknown> = {}) =>
  JSON.stringify({ object: 'list', data: vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })), model: 'm', usage: { prompt_tokens: 3, total_tokens: 3 }, ...extra });

describe('readWireEmbeddingList', () => {
  it('keeps the text, reads model and usage, and counts each vector', () => {
    const text = list([[0.5, -1e-7, 3], [], [1]], { id: 'extra fields are forwarded' });
    const read = readWireEmbeddingList(text)!;
    assert.equal(read.text, text);
    assert.equal(read.model, 'm');
    assert.deepEqual(read.usage, { prompt_tokens: 3, total_tokens: 3 });
    assert.deepEqual(read.items.map((item) => item.dimensions), [3, 0, 1]);
    assert.deepEqual(read.data.map((item) => item.embedding), [[0.5, -1e-7, 3], [], [1]], 'vectors parsed on demand');
    assert.equal(JSON.stringify(read), text, 'a generic serialiser writes the same list');
  });

  it('reads pretty-printed text with any JSON number form', () => {
    const text = '{\n "object" : "list",\n "data": [ { "object": "embedding", "index": 0, "embedding" : [ -0.10 , 1E+2,\n 2e-05 ] } ],\n "model": "m", "usage": { "prompt_tokens": 0, "total_tokens": 0 } }';
    assert.deepEqual(readWireEmbeddingList(text)?.items, [{ object: 'embedding', index: 0, dimensions: 3 }]);
  });

  it('leaves to the ordinary parse what is not a plain float list gw would answer unchanged', () => {
    const good = list([[1, 2]]);
    const cases: Record<string, string> = {
      'a string in a vector': good.replace('[1,2]', '[1,"2"]'),
      'a nested array': good.replace('[1,2]', '[1,[2]]'),
      'a trailing comma': good.replace('[1,2]', '[1,2,]'),
      'a number JSON does not allow': good.replace('[1,2]', '[1.,2]'),
      'a space JSON does not allow': good.replace('[1,2]', '[1,\u00a02]'),
      'base64 vectors': good.replace('[1,2]', '"AACAPw=="'),
      'not JSON': good.slice(0, -1),
      'no model': good.replace('"model":"m",', ''),
      'a total of 0 with prompt tokens': good.replace('"total_tokens":3', '"total_tokens":0'),
      'items out of order': JSON.stringify({ object: 'list', data: [{ object: 'embedding', index: 1, embedding: [1] }, { object: 'embedding', index: 0, embedding: [2] }], model: 'm', usage: { prompt_tokens: 1, total_tokens: 1 } }),
      'a vector look-alike inside a string': good.replace('"model":"m"', '"model":"\\"embedding\\":[1]"').replace('[1,2]', '"x"'),
      'another object': '{"object":"chat.completion","data":[],"model":"m","usage":{"prompt_tokens":0,"total_tokens":0}}',
    };
    for (const [name, text] of Object.entries(cases)) assert.equal(readWireEmbeddingList(text), undefined, name);
  });

  it('logs each vector as its index and size', () => {
    const summary = { object: 'list', data: [{ object: 'embedding', index: 0, dimensions: 2 }], model: 'm', usage: { prompt_tokens: 3, total_tokens: 3 } };
    assert.deepEqual(loggedEmbeddingList(readWireEmbeddingList(list([[1, 2]]))!), summary);
    assert.deepEqual(loggedEmbeddingList(JSON.parse(list([[1, 2]]))), summary);
    assert.deepEqual(loggedEmbeddingList({ ...JSON.parse(list([[]])), data: [{ object: 'embedding', index: 0, embedding: 'AACAPwAAAEA=' }] }).data, summary.data);
  });
});
