/**
 * Splits the AWS event-stream byte stream (application/vnd.amazon.eventstream) into messages.
 * Bytes arrive in arbitrary chunks: a frame is decoded only once all of it is here. Each frame
 * starts with its total length (uint32, big-endian); the codec checks both CRCs.
 */
import { EventStreamCodec, type Message } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import { UpstreamError } from '../../../core/errors.js';

const PRELUDE_BYTES = 12;
const MIN_FRAME_BYTES = 16;
// The event-stream format caps a message at 16 MB; a larger length means the bytes are not a frame.
const MAX_FRAME_BYTES = 16 * 1024 * 1024 + 128 * 1024;

export class EventStreamFrames {
  private readonly codec = new EventStreamCodec(toUtf8, fromUtf8);
  private pending: Uint8Array = new Uint8Array(0);

  /** Feeds bytes; returns the messages they complete. */
  push(bytes: Uint8Array): Message[] {
    this.pending = this.pending.length === 0 ? bytes : Buffer.concat([this.pending, bytes]);
    const messages: Message[] = [];
    let offset = 0;
    while (this.pending.length - offset >= PRELUDE_BYTES) {
      const view = new DataView(this.pending.buffer, this.pending.byteOffset + offset, PRELUDE_BYTES);
      const frameBytes = view.getUint32(0, false);
      if (frameBytes < MIN_FRAME_BYTES || frameBytes > MAX_FRAME_BYTES) throw malformed(`a frame length of ${frameBytes} bytes`);
      if (this.pending.length - offset < frameBytes) break;
      messages.push(this.decode(this.pending.subarray(offset, offset + frameBytes)));
      offset += frameBytes;
    }
    // Copy the tail (Buffer#slice would not) so the consumed bytes can be released.
    if (offset > 0) this.pending = new Uint8Array(this.pending.subarray(offset));
    return messages;
  }

  /** Bytes of an unfinished frame still waiting (non-zero at the end means the stream was cut). */
  get bufferedBytes(): number {
    return this.pending.length;
  }

  private decode(frame: Uint8Array): Message {
    try {
      return this.codec.decode(frame);
    } catch (error) {
      throw malformed((error as Error).message);
    }
  }
}

function malformed(detail: string): UpstreamError {
  return new UpstreamError(502, `bedrock sent a malformed event stream: ${detail}`, 'malformed_stream');
}
