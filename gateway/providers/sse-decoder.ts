/**
 * Splits a server-sent-events byte stream into the `data` payloads of its events. Handles
 * events split across network chunks, CRLF or LF line ends, and multi-line data fields.
 * Shared by every adapter whose upstream speaks SSE (OpenAI and its compatibles, Anthropic, Gemini).
 */
export interface SseEvent {
  event: string | undefined;
  data: string;
}

export class SseDecoder {
  private readonly decoder = new TextDecoder();
  private buffer = '';

  /** Returns the events the bytes complete. */
  push(bytes: Uint8Array): SseEvent[] {
    this.buffer += this.decoder.decode(bytes, { stream: true });
    return this.drain(false);
  }

  /** Returns an event left without its blank line at the end of the stream. */
  end(): SseEvent[] {
    this.buffer += this.decoder.decode();
    return this.drain(true);
  }

  private drain(final: boolean): SseEvent[] {
    const events: SseEvent[] = [];
    for (;;) {
      const match = /\r?\n\r?\n/.exec(this.buffer);
      if (!match) break;
      const block = this.buffer.slice(0, match.index);
      this.buffer = this.buffer.slice(match.index + match[0].length);
      const event = parseBlock(block);
      if (event) events.push(event);
    }
    if (final && this.buffer.trim() !== '') {
      const event = parseBlock(this.buffer);
      this.buffer = '';
      if (event) events.push(event);
    }
    return events;
  }
}

function parseBlock(block: string): SseEvent | undefined {
  let event: string | undefined;
  const data: string[] = [];
  for (const line of block.split(/\r?\n/)) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data.push(value);
    else if (field === 'event') event = value;
  }
  return data.length === 0 ? undefined : { event, data: data.join('\n') };
}
