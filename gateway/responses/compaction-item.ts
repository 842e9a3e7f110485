/**
 * The content of a `compaction` item gw makes (POST /v1/responses/compact): the summary, as base64
 * of a small JSON marked as gw's. A provider's own compaction items are encrypted for it alone: gw
 * cannot read those.
 */
const MARK = 'gw.compaction.v1';

export function compactionContent(summary: string): string {
  return Buffer.from(JSON.stringify({ [MARK]: summary })).toString('base64');
}

/** The summary inside a compaction item gw made; undefined for anyone else's. */
export function summaryOfCompaction(content: unknown): string | undefined {
  if (typeof content !== 'string') return undefined;
  try {
    const decoded = JSON.parse(Buffer.from(content, 'base64').toString('utf8')) as Record<string, unknown>;
    return typeof decoded[MARK] === 'string' ? decoded[MARK] : undefined;
  } catch {
    return undefined;
  }
}
