import type { GuardrailCheck } from '../check-types.js';
import { detectPii, PII_CATEGORIES, redactPii, type PiiCategory } from './pii-detectors.js';

type PiiParams = { categories?: PiiCategory[]; redact?: boolean };

/**
 * Fails when the text holds personal data of the chosen categories (all by default). With
 * `redact`, the data is replaced by placeholders ([EMAIL], [CARD]...) in transformedText and the
 * check passes, since what goes on no longer carries the data. Results name categories and
 * counts, never the values, because they are logged.
 */
export const piiCheck: GuardrailCheck<PiiParams> = {
  id: 'default.pii',
  phases: ['input', 'output'],
  parametersSchema: {
    type: 'object',
    properties: {
      categories: { type: 'array', minItems: 1, uniqueItems: true, items: { type: 'string', enum: [...PII_CATEGORIES] } },
      redact: { type: 'boolean', description: 'Replace what is found with placeholders instead of failing. Default false.' },
    },
    additionalProperties: false,
  },
  run(params, subject) {
    const findings = detectPii(subject.text, params.categories ?? PII_CATEGORIES);
    if (findings.length === 0) return { verdict: true, explanation: 'No personal data found.', data: { findings: [] } };
    const summary = findings.map(({ category, kind }) => ({ category, kind }));
    const categories = [...new Set(findings.map((finding) => finding.category))].join(', ');
    if (params.redact) {
      return {
        verdict: true,
        explanation: `Redacted ${findings.length} item(s) of personal data (${categories}).`,
        data: { findings: summary, redacted: true },
        transformedText: redactPii(subject.text, findings),
      };
    }
    return { verdict: false, explanation: `Found ${findings.length} item(s) of personal data (${categories}).`, data: { findings: summary } };
  },
};
