import { describe, expect, test } from 'vitest';
import { readSse } from './sse';

function streamOf(...chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

async function events(stream: ReadableStream<Uint8Array>): Promise<string[]> {
  const out: string[] = [];
  for await (const data of readSse(stream)) out.push(data);
  return out;
}

describe('the SSE reader', () => {
  test('events split anywhere across chunks come out whole, in order, until [DONE]', async () => {
    const text = 'data: {"a":1}\n\ndata: {"b":2}\n\ndata: [DONE]\n\n';
    for (let cut = 1; cut < text.length; cut++) {
      expect(await events(streamOf(text.slice(0, cut), text.slice(cut)))).toEqual(['{"a":1}', '{"b":2}']);
    }
  });

  test('CRLF and CR line ends, comments, other fields and multi-line data', async () => {
    expect(await events(streamOf(': keep-alive\r\n\r\nevent: message\r\nid: 7\r\ndata: one\r\ndata: two\r\n\r\ndata:three\r\r'))).toEqual(['one\ntwo', 'three']);
  });

  test('nothing after [DONE] is read', async () => {
    expect(await events(streamOf('data: x\n\ndata: [DONE]\n\ndata: y\n\n'))).toEqual(['x']);
  });

  test('a last event without its blank line still counts', async () => {
    expect(await events(streamOf('data: x\n\ndata: tail'))).toEqual(['x', 'tail']);
  });

  test('multi-byte characters split between chunks are decoded whole', async () => {
    const bytes = new TextEncoder().encode('data: héllo ✓\n\n');
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.slice(0, 8));
        controller.enqueue(bytes.slice(8));
        controller.close();
      },
    });
    expect(await events(stream)).toEqual(['héllo ✓']);
  });
});
