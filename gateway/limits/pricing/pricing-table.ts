/**
 * The bundled price list the cost budgets use: USD per million tokens, input and output, per
 * provider and model. `version` changes whenever a price does, so a cost can be traced to the
 * table that produced it. Models not listed cost 0.
 */
export interface ModelPrice {
  input: number;
  output: number;
}

export interface PricingTable {
  version: string;
  currency: 'USD';
  providers: Record<string, Record<string, ModelPrice>>;
}

const OPENAI: Record<string, ModelPrice> = {
  'gpt-4o': { input: 2.5, output: 10 },
  'gpt-4o-mini': { input: 0.15, output: 0.6 },
  'gpt-4.1': { input: 2, output: 8 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6 },
  'gpt-4.1-nano': { input: 0.1, output: 0.4 },
  'o3-mini': { input: 1.1, output: 4.4 },
  'gpt-3.5-turbo': { input: 0.5, output: 1.5 },
};

const ANTHROPIC: Record<string, ModelPrice> = {
  'claude-sonnet-4-5': { input: 3, output: 15 },
  'claude-opus-4-1': { input: 15, output: 75 },
  'claude-3-5-haiku-latest': { input: 0.8, output: 4 },
};

const GEMINI: Record<string, ModelPrice> = {
  'gemini-2.5-pro': { input: 1.25, output: 10 },
  'gemini-2.5-flash': { input: 0.3, output: 2.5 },
  'gemini-2.0-flash': { input: 0.1, output: 0.4 },
};

export const PRICING_TABLE: PricingTable = {
  version: '2026-11-01',
  currency: 'USD',
  providers: {
    openai: OPENAI,
    'azure-openai': OPENAI,
    anthropic: ANTHROPIC,
    google: GEMINI,
    'vertex-ai': { ...GEMINI, ...ANTHROPIC },
    bedrock: {
      'anthropic.claude-3-5-sonnet-20240620-v1:0': { input: 3, output: 15 },
      'anthropic.claude-3-5-haiku-20241022-v1:0': { input: 0.8, output: 4 },
    },
    groq: {
      'llama-3.3-70b-versatile': { input: 0.59, output: 0.79 },
      'llama-3.1-8b-instant': { input: 0.05, output: 0.08 },
    },
  },
};
