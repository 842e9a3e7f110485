/**
 * Reads a text/event-stream body as it arrives: yields each event's data (multi-line data joined
 * with newlines), skips comments and other fields, and ends at `data: [DONE]` or the stream's end.
 */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let data: string[] = [];
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let newline: number;
      while ((newline = buffer.search(/\r\n|\r|\n/)) !== -1) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + (buffer.startsWith('\r\n', newline) ? 2 : 1));
        if (line === '') {
          if (data.length) {
            const event = data.join('\n');
            data = [];
            if (event === '[DONE]') return;
            yield event;
          }
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        if (field !== 'data') continue;
        const value = colon === -1 ? '' : line.slice(colon + 1);
        data.push(value.startsWith(' ') ? value.slice(1) : value);
      }
    }
    // A last event without its blank line still counts.
    if (buffer.startsWith('data:')) data.push(buffer.slice(5).trimStart());
    if (data.length && data.join('\n') !== '[DONE]') yield data.join('\n');
  } finally {
    // Stops reading the body when the caller stops early ([DONE], an abort).
    await reader.cancel().catch(() => undefined);
  }
}
