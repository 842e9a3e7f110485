/** OpenAI: the reference wire format, plus the model-family rules for max_tokens. */
import { createOpenAiCompatibleAdapter } from '../openai-compatible/adapter.js';
import { assertTokenLimitField } from './model-family.js';

export const openai = createOpenAiCompatibleAdapter({
  name: 'openai',
  baseUrl: 'https://api.openai.com/v1',
  checkRequest: assertTokenLimitField,
  batchApi: true,
  responsesApi: true,
});
