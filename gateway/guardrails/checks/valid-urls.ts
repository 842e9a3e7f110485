import { isIP } from 'node:net';
import type { GuardrailCheck } from '../check-types.js';

type ValidUrlsParams = { httpOnly?: boolean };

/** scheme://... up to whitespace or a character that cannot end a URL in prose. */
const CANDIDATE = /\b[a-z][a-z0-9+.-]*:\/\/[^\s<>"'`]+/gi;
const TRAILING_PUNCTUATION = /[.,;:!?]+$/;
/** Host names: dot-separated labels of letters, digits and inner hyphens, ending in a letter TLD or punycode. */
const DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/;
/** Schemes whose URLs must name a host. */
const HOST_SCHEMES = new Set(['http:', 'https:', 'ftp:', 'ws:', 'wss:']);

/** Drops sentence punctuation and a closing bracket that the URL did not open. */
function trimProse(candidate: string): string {
  let url = candidate.replace(TRAILING_PUNCTUATION, '');
  while (/[)\]]$/.test(url)) {
    const close = url.at(-1)!;
    const open = close === ')' ? '(' : '[';
    if (url.split(open).length >= url.split(close).length) break;
    url = url.slice(0, -1).replace(TRAILING_PUNCTUATION, '');
  }
  return url;
}

function isValid(raw: string, httpOnly: boolean): boolean {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return false;
  }
  if (httpOnly && url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  if (!HOST_SCHEMES.has(url.protocol)) return true;
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return isIP(host) !== 0 || host === 'localhost' || DOMAIN.test(host);
}

/**
 * Passes when every URL in the text is well formed (and, with `httpOnly`, http or https).
 * Syntax only: nothing is resolved or fetched. A text without URLs passes.
 */
export const validUrlsCheck: GuardrailCheck<ValidUrlsParams> = {
  id: 'default.validUrls',
  phases: ['input', 'output'],
  parametersSchema: {
    type: 'object',
    properties: {
      httpOnly: { type: 'boolean', description: 'Also require every URL to be http or https. Default false.' },
    },
    additionalProperties: false,
  },
  run(params, subject) {
    const urls = [...subject.text.matchAll(CANDIDATE)].map((match) => trimProse(match[0]));
    const invalid = urls.filter((url) => !isValid(url, params.httpOnly === true));
    const valid = urls.filter((url) => !invalid.includes(url));
    if (urls.length === 0) return { verdict: true, explanation: 'The text contains no URLs.', data: { valid, invalid } };
    return invalid.length === 0
      ? { verdict: true, explanation: `All ${urls.length} URLs are valid.`, data: { valid, invalid } }
      : { verdict: false, explanation: `${invalid.length} of ${urls.length} URLs are not valid.`, data: { valid, invalid } };
  },
};
