/**
 * Splits a Gemini `alt=sse` byte stream into JSON payloads. Responses arrive as `data: {...}`
 * events; an error that happens mid-stream arrives as a bare JSON object without SSE framing (the
 * official @google/genai client looks for it the same way), so a block that is not an SSE event but
 * looks like JSON is returned as a payload too.
 */
export class GeminiStreamFrames {
  private readonly decoder = new TextDecoder();
  private buffer = '';

  push(bytes: Uint8Array): string[] {
    this.buffer += this.decoder.decode(bytes, { stream: true });
    return this.drain(false);
  }

  end(): string[] {
    this.buffer += this.decoder.decode();
    return this.drain(true);
  }

  private drain(final: boolean): string[] {
    const payloads: string[] = [];
    for (;;) {
      const match = /\r?\n\r?\n/.exec(this.buffer);
      if (!match) break;
      const block = this.buffer.slice(0, match.index);
      this.buffer = this.buffer.slice(match.index + match[0].length);
      const payload = payloadOf(block);
      if (payload !== undefined) payloads.push(payload);
    }
    if (final) {
      const payload = payloadOf(this.buffer);
      this.buffer = '';
      if (payload !== undefined) payloads.push(payload);
    }
    return payloads;
  }
}

function payloadOf(block: string): string | undefined {
  const trimmed = block.trim();
  if (trimmed === '') return undefined;
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) return trimmed;
  const data = trimmed
    .split(/\r?\n/)
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(5).replace(/^ /, ''));
  return data.length > 0 ? data.join('\n') : undefined;
}
