/**
 * Anthropic URLs. The default base is https://api.anthropic.com (the official SDK's baseURL); a
 * custom host replaces it. A custom host that already ends in /v1 (the way OpenAI-style base URLs
 * are written) is not given a second one.
 */
import type { ProviderTarget } from '../types.js';

export const ANTHROPIC_BASE_URL = 'https://api.anthropic.com';

export function anthropicUrl(target: ProviderTarget, path: string): string {
  const base = (target.customHost ?? ANTHROPIC_BASE_URL).replace(/\/+$/, '');
  return `${/\/v1$/.test(base) ? base : `${base}/v1`}/${path.replace(/^\//, '')}`;
}
