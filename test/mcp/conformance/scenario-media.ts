/**
 * Tiny media for the scenarios that check image, audio and binary content: the suite only looks
 * for base64 data and a MIME type, so the smallest valid files do.
 */

/** A 1x1 PNG (one teal pixel), base64. */
export const ONE_PIXEL_PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGOQr+oBAAHhASaP2TlJAAAAAElFTkSuQmCC';

/** A WAV file of silence (8 kHz, 8-bit mono), base64: a 44-byte RIFF header and the samples. */
export function silentWav(samples = 800): string {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + samples, 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(16, 16); // size of the fmt chunk
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(8000, 24); // sample rate
  header.writeUInt32LE(8000, 28); // bytes per second
  header.writeUInt16LE(1, 32); // bytes per frame
  header.writeUInt16LE(8, 34); // bits per sample
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(samples, 40);
  // 8-bit PCM is unsigned: 128 is silence.
  return Buffer.concat([header, Buffer.alloc(samples, 128)]).toString('base64');
}
