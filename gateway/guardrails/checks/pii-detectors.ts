/**
 * Where personal data sits in a text. Patterns favour precision: card numbers and Canadian SINs
 * must pass the Luhn check, SSNs must use assignable ranges, phone numbers need a leading + or
 * the North American (xxx) xxx-xxxx shape, IP addresses must parse as IPs.
 */
import { isIPv4, isIPv6 } from 'node:net';
import { passesLuhn } from './luhn.js';

export const PII_CATEGORIES = ['email', 'phone', 'card', 'national_id', 'ip_address'] as const;
export type PiiCategory = (typeof PII_CATEGORIES)[number];

export interface PiiFinding {
  category: PiiCategory;
  /** Which pattern: us_ssn, uk_nino, ca_sin for national ids; ipv4/ipv6 for addresses. */
  kind: string;
  start: number;
  end: number;
}

type Detector = (text: string) => PiiFinding[];

function found(text: string, pattern: RegExp, category: PiiCategory, kind: string, accept: (match: RegExpMatchArray) => boolean = () => true): PiiFinding[] {
  return [...text.matchAll(pattern)]
    .filter(accept)
    .map((match) => ({ category, kind, start: match.index!, end: match.index! + match[0].length }));
}

const digitsOf = (value: string) => value.replace(/\D/g, '');

const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g;
// 13 to 19 digits, optionally grouped by single spaces or hyphens.
const CARD = /(?<![\d-])\d(?:[ -]?\d){12,18}(?![\d-])/g;
// Dashed or spaced (same separator twice); bare nine-digit runs are too often something else.
const US_SSN = /(?<![\d-])(\d{3})([- ])(\d{2})\2(\d{4})(?![\d-])/g;
// Two prefix letters (some never issued), six digits, suffix A-D; spaces between pairs allowed.
const UK_NINO = /\b(?!BG|GB|NK|KN|TN|NT|ZZ)[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z] ?\d{2} ?\d{2} ?\d{2} ?[A-D]\b/g;
const CA_SIN = /(?<![\d-])\d{3}([- ])\d{3}\1\d{3}(?![\d-])/g;
const IPV4 = /(?<![\d.])(?:\d{1,3}\.){3}\d{1,3}(?![\d.])/g;
const IPV6_CANDIDATE = /(?<![\w:])(?:[0-9A-Fa-f]{0,4}:){2,7}(?:[0-9A-Fa-f]{1,4}|(?:\d{1,3}\.){3}\d{1,3})?(?![\w:])/g;
const PHONE_INTERNATIONAL = /\+\d{1,3}(?:[ .-]?\(?\d{1,4}\)?)(?:[ .-]?\d{2,4}){2,5}(?!\d)/g;
const PHONE_NANP = /(?<![\d-])(?:\(\d{3}\) ?|\d{3}[-. ])\d{3}[-. ]\d{4}(?![\d-])/g;

const DETECTORS: Record<PiiCategory, Detector> = {
  email: (text) => found(text, EMAIL, 'email', 'email'),
  card: (text) =>
    found(text, CARD, 'card', 'card', (match) => {
      const digits = digitsOf(match[0]);
      return digits.length >= 13 && digits.length <= 19 && passesLuhn(digits);
    }),
  national_id: (text) => [
    ...found(text, US_SSN, 'national_id', 'us_ssn', (match) => {
      const [area, group, serial] = [match[1]!, match[3]!, match[4]!];
      return area !== '000' && area !== '666' && !area.startsWith('9') && group !== '00' && serial !== '0000';
    }),
    ...found(text, UK_NINO, 'national_id', 'uk_nino'),
    // SINs start with 1-7 or 9 (0 and 8 are not issued) and carry a Luhn check digit.
    ...found(text, CA_SIN, 'national_id', 'ca_sin', (match) => /^[1-79]/.test(match[0]) && passesLuhn(digitsOf(match[0]))),
  ],
  ip_address: (text) => [
    ...found(text, IPV4, 'ip_address', 'ipv4', (match) => isIPv4(match[0])),
    // A bare "::" is valid IPv6 but in prose it is punctuation, so at least one hex digit is required.
    ...found(text, IPV6_CANDIDATE, 'ip_address', 'ipv6', (match) => /[0-9a-f]/i.test(match[0]) && isIPv6(match[0])),
  ],
  phone: (text) => [
    ...found(text, PHONE_INTERNATIONAL, 'phone', 'phone', (match) => {
      const digits = digitsOf(match[0]).length;
      return digits >= 8 && digits <= 15;
    }),
    ...found(text, PHONE_NANP, 'phone', 'phone'),
  ],
};

/** When two findings overlap, the more specific category wins (a card number is not also a phone number). */
const PRECEDENCE: readonly PiiCategory[] = ['email', 'card', 'national_id', 'ip_address', 'phone'];

/** Non-overlapping findings of the wanted categories, in text order. */
export function detectPii(text: string, categories: readonly PiiCategory[]): PiiFinding[] {
  const accepted: PiiFinding[] = [];
  for (const category of PRECEDENCE) {
    if (!categories.includes(category)) continue;
    for (const finding of DETECTORS[category](text)) {
      if (!accepted.some((other) => finding.start < other.end && other.start < finding.end)) accepted.push(finding);
    }
  }
  return accepted.sort((a, b) => a.start - b.start);
}

/** The text with each finding replaced by its category's placeholder, e.g. [EMAIL]. */
export function redactPii(text: string, findings: readonly PiiFinding[]): string {
  let result = '';
  let cursor = 0;
  for (const finding of findings) {
    result += `${text.slice(cursor, finding.start)}[${finding.category.toUpperCase()}]`;
    cursor = finding.end;
  }
  return result + text.slice(cursor);
}
