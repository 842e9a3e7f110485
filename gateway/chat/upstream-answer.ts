/** What a successful upstream attempt hands to the respond stage. */
import type { ChatCompletion, StreamTranslator } from '../providers/types.js';
import type { UpstreamAttempt } from '../transport/upstream-attempt.js';

export type UpstreamAnswer =
  | { kind: 'json'; completion: ChatCompletion }
  | {
      kind: 'stream';
      /** The upstream body, still arriving; the attempt's timeout keeps covering it. */
      body: AsyncIterable<Uint8Array>;
      translator: StreamTranslator;
      attempt: UpstreamAttempt;
    };
