/**
 * OpenAI chat request -> Gemini generateContent body, shared by the `google` (AI Studio) and
 * `vertex-ai` adapters.
 *
 * Parameter rules:
 * | parameter                         | rule                                                                 |
 * |-----------------------------------|----------------------------------------------------------------------|
 * | max_completion_tokens, max_tokens | generationConfig.maxOutputTokens (max_completion_tokens wins)         |
 * | temperature, top_p, stop, seed    | generationConfig.temperature / topP / stopSequences / seed            |
 * | n                                 | generationConfig.candidateCount                                      |
 * | presence/frequency_penalty        | generationConfig.presencePenalty / frequencyPenalty                   |
 * | logprobs, top_logprobs            | generationConfig.responseLogprobs / logprobs                          |
 * | response_format json_object       | responseMimeType application/json                                    |
 * | response_format json_schema       | responseMimeType application/json + responseJsonSchema (JSON Schema  |
 * |                                   | as sent; no lossy conversion to the OpenAPI-subset responseSchema)    |
 * | tools                             | one tool of functionDeclarations {name, description,                 |
 * |                                   | parametersJsonSchema}                                                 |
 * | tool_choice                       | toolConfig.functionCallingConfig: auto AUTO, none NONE, required     |
 * |                                   | ANY, named ANY + allowedFunctionNames                                 |
 * | thinking                          | strict_openai_compliance false: enabled -> thinkingConfig            |
 * |                                   | {thinkingBudget, includeThoughts: true}; disabled -> dropped (the     |
 * |                                   | model's default: some models cannot turn thinking off). Strict on     |
 * |                                   | (the default): dropped                                               |
 * | parallel_tool_calls               | dropped: Gemini has no switch for it                                 |
 * | logit_bias non-empty              | 400; reasoning_effort: 400 (use thinking); audio modality: 400       |
 * | functions, function_call          | 400: use tools and tool_choice                                       |
 * | user, metadata, store, other      | dropped: OpenAI bookkeeping with no Gemini counterpart               |
 * | stream, stream_options, model     | carried by the URL / the stream translator                           |
 */
import { ValidationError } from '../../../core/errors.js';
import type { ChatRequest, ProviderTarget } from '../types.js';
import { toGeminiConversation } from './contents.js';
import type { GeminiGenerationConfig, GeminiRequestBody } from './wire.js';

function refuseUnsupported(request: ChatRequest): void {
  const refuse = (param: string, why: string) => {
    throw new ValidationError(`gemini does not support ${param}: ${why}`, param);
  };
  if (request.logit_bias && Object.keys(request.logit_bias).length > 0) refuse('logit_bias', 'Gemini has no token biases');
  if (request.reasoning_effort != null) refuse('reasoning_effort', 'use thinking with strict_openai_compliance off');
  if (request.modalities?.includes('audio')) refuse('modalities', 'audio output is not translated');
  if (request.functions) refuse('functions', 'use tools');
  if (request.function_call) refuse('function_call', 'use tool_choice');
}

function generationConfig(request: ChatRequest, target: ProviderTarget): GeminiGenerationConfig | undefined {
  const config: GeminiGenerationConfig = {};
  const maxTokens = request.max_completion_tokens ?? request.max_tokens;
  if (maxTokens != null) config.maxOutputTokens = maxTokens;
  if (request.temperature != null) config.temperature = request.temperature;
  if (request.top_p != null) config.topP = request.top_p;
  if (request.stop != null) config.stopSequences = typeof request.stop === 'string' ? [request.stop] : request.stop;
  if (request.n != null) config.candidateCount = request.n;
  if (request.seed != null) config.seed = request.seed;
  if (request.presence_penalty != null) config.presencePenalty = request.presence_penalty;
  if (request.frequency_penalty != null) config.frequencyPenalty = request.frequency_penalty;
  if (request.logprobs) config.responseLogprobs = true;
  if (request.top_logprobs != null) config.logprobs = request.top_logprobs;
  const format = request.response_format;
  if (format?.type === 'json_object') config.responseMimeType = 'application/json';
  if (format?.type === 'json_schema') {
    config.responseMimeType = 'application/json';
    config.responseJsonSchema = format.json_schema.schema ?? { type: 'object' };
  }
  const thinking = request.thinking;
  if (thinking?.type === 'enabled' && target.strictOpenAiCompliance === false) {
    config.thinkingConfig = { ...(thinking.budget_tokens != null ? { thinkingBudget: thinking.budget_tokens } : {}), includeThoughts: true };
  }
  return Object.keys(config).length > 0 ? config : undefined;
}

function toolFields(request: ChatRequest): Pick<GeminiRequestBody, 'tools' | 'toolConfig'> {
  const tools = request.tools ?? [];
  const choice = request.tool_choice;
  if (tools.length === 0) {
    if (choice === 'required' || typeof choice === 'object') throw new ValidationError('tool_choice needs tools', 'tool_choice');
    return {};
  }
  const fields: Pick<GeminiRequestBody, 'tools' | 'toolConfig'> = {
    tools: [
      {
        functionDeclarations: tools.map(({ function: fn }) => ({
          name: fn.name,
          ...(fn.description ? { description: fn.description } : {}),
          ...(fn.parameters ? { parametersJsonSchema: fn.parameters } : {}),
        })),
      },
    ],
  };
  if (choice === 'auto') fields.toolConfig = { functionCallingConfig: { mode: 'AUTO' } };
  else if (choice === 'none') fields.toolConfig = { functionCallingConfig: { mode: 'NONE' } };
  else if (choice === 'required') fields.toolConfig = { functionCallingConfig: { mode: 'ANY' } };
  else if (choice) fields.toolConfig = { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [choice.function.name] } };
  return fields;
}

export function toGeminiBody(request: ChatRequest, target: ProviderTarget): GeminiRequestBody {
  refuseUnsupported(request);
  const { contents, systemInstruction } = toGeminiConversation(request);
  const body: GeminiRequestBody = { contents };
  if (systemInstruction) body.systemInstruction = systemInstruction;
  Object.assign(body, toolFields(request));
  const config = generationConfig(request, target);
  if (config) body.generationConfig = config;
  return body;
}
