/**
 * Reads an agent's SSE answer one event at a time, as the bytes arrive: each event's `data:` lines
 * joined (comments, `event:` and `id:` lines are not needed to relay A2A's JSON-RPC answers).
 */
export async function* sseData(body: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffered = '';
  const take = function* (): Generator<string> {
    for (let end = boundary(buffered); end; end = boundary(buffered)) {
      const data = dataOf(buffered.slice(0, end.at));
      buffered = buffered.slice(end.at + end.length);
      if (data !== undefined) yield data;
    }
  };
  for await (const chunk of body) {
    buffered += decoder.decode(chunk, { stream: true });
    yield* take();
  }
  buffered += decoder.decode();
  yield* take();
  const last = dataOf(buffered);
  if (last !== undefined) yield last;
}

function boundary(text: string): { at: number; length: number } | undefined {
  const match = /\r?\n\r?\n/.exec(text);
  return match ? { at: match.index, length: match[0].length } : undefined;
}

function dataOf(block: string): string | undefined {
  const lines = block.split(/\r?\n/).filter((line) => line.startsWith('data:'));
  if (!lines.length) return undefined;
  return lines.map((line) => line.slice(5).replace(/^ /, '')).join('\n');
}
