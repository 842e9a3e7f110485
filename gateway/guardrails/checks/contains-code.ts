import type { GuardrailCheck } from '../check-types.js';
import { fencedBlocks } from './fenced-code.js';
import { applyNot, notParameter } from './invert.js';

type ContainsCodeParams = { format?: string; not?: boolean };

/** Fence labels people use for the same language, mapped to one name. */
const ALIASES: Record<string, string> = {
  py: 'python', python3: 'python', ts: 'typescript', tsx: 'typescript', js: 'javascript', jsx: 'javascript', mjs: 'javascript',
  sh: 'shell', bash: 'shell', zsh: 'shell', console: 'shell', 'c#': 'csharp', cs: 'csharp', 'c++': 'cpp', cc: 'cpp', hpp: 'cpp',
  rb: 'ruby', golang: 'go', rs: 'rust', kt: 'kotlin', pl: 'perl', md: 'markdown', yml: 'yaml', docker: 'dockerfile',
  postgresql: 'sql', mysql: 'sql', psql: 'sql', htm: 'html', jsonc: 'json',
};

function language(name: string): string {
  const lower = name.trim().toLowerCase();
  return ALIASES[lower] ?? lower;
}

/**
 * Passes when the text contains a fenced code block; with `format`, one in that language
 * (Python, TypeScript, SQL... matched by the fence's label, aliases such as py or ts included).
 */
export const containsCodeCheck: GuardrailCheck<ContainsCodeParams> = {
  id: 'default.containsCode',
  phases: ['input', 'output'],
  parametersSchema: {
    type: 'object',
    properties: {
      format: { type: 'string', minLength: 1, description: 'Language to look for, e.g. Python, SQL, TypeScript. Any language when absent.' },
      not: notParameter,
    },
    additionalProperties: false,
  },
  run(params, subject) {
    const blocks = fencedBlocks(subject.text);
    const wanted = params.format === undefined ? undefined : language(params.format);
    const matching = wanted === undefined ? blocks : blocks.filter((block) => language(block.language) === wanted);
    const what = wanted === undefined ? 'code block' : `${wanted} code block`;
    const result = matching.length > 0
      ? { verdict: true, explanation: `Found ${matching.length} ${what}(s).`, data: { languages: matching.map((block) => block.language) } }
      : { verdict: false, explanation: `No ${what} found.`, data: { languages: blocks.map((block) => block.language) } };
    return applyNot(result, params.not);
  },
};
