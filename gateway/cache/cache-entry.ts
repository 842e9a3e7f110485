/**
 * What a cache entry holds (simple and semantic alike): the answer's JSON text, prefixed with the
 * provider that gave it, `openai\n{...}`, so a hit can say whose answer it serves (log row,
 * x-gw-provider) and price it as that provider's. Entries written before carry the answer alone
 * (they start with `{` or `[`): their provider is unknown.
 */
export interface CacheEntry {
  provider: string | undefined;
  text: string;
}

export function encodeCacheEntry(provider: string | undefined, text: string): string {
  return provider ? `${provider}\n${text}` : text;
}

export function decodeCacheEntry(stored: string): CacheEntry {
  const first = stored.trimStart()[0];
  const newline = stored.indexOf('\n');
  if (first === '{' || first === '[' || newline === -1) return { provider: undefined, text: stored };
  return { provider: stored.slice(0, newline), text: stored.slice(newline + 1) };
}
