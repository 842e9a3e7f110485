/**
 * How a prompt or partial is addressed: `id` or `slug` (its default version), `id@3` (version 3),
 * `id@latest`, `id@default`, or `id@production` (the version a label points at). Slugs cannot
 * hold `@`, and label names cannot be `latest`, `default` or digits only, so every address reads
 * one way.
 */
export type VersionSelector =
  | { kind: 'default' }
  | { kind: 'latest' }
  | { kind: 'number'; version: number }
  | { kind: 'label'; name: string };

export interface PromptAddress {
  idOrSlug: string;
  selector: VersionSelector;
}

export function parseAddress(raw: string): PromptAddress {
  const at = raw.lastIndexOf('@');
  if (at <= 0) return { idOrSlug: raw, selector: { kind: 'default' } };
  const idOrSlug = raw.slice(0, at);
  const part = raw.slice(at + 1);
  if (part === '' || part === 'default') return { idOrSlug, selector: { kind: 'default' } };
  if (part === 'latest') return { idOrSlug, selector: { kind: 'latest' } };
  if (/^[0-9]+$/.test(part)) return { idOrSlug, selector: { kind: 'number', version: Number(part) } };
  return { idOrSlug, selector: { kind: 'label', name: part } };
}
