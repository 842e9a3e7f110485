/**
 * OpenAI chat request -> Converse request body.
 *
 * Parameter rules (Converse has no field for some OpenAI parameters):
 * | parameter                         | rule                                                              |
 * |-----------------------------------|-------------------------------------------------------------------|
 * | max_completion_tokens, max_tokens | inferenceConfig.maxTokens (max_completion_tokens wins)            |
 * | temperature, top_p, stop          | inferenceConfig.temperature / topP / stopSequences                |
 * | cache_control (parts, tools)      | a cachePoint block after the marked block or tool                 |
 * | tools, tool_choice                | toolConfig; tool_choice none omits the tools (400 when the        |
 * |                                   | conversation already holds tool calls: Bedrock then needs them)   |
 * | response_format json_schema       | outputConfig.textFormat (Bedrock structured output)               |
 * | response_format json_object       | 400: Converse has no schema-less JSON mode                        |
 * | thinking                          | strict off + Anthropic model: additionalModelRequestFields.thinking;|
 * |                                   | strict on: dropped; other models: 400                             |
 * | n > 1                             | 400: one choice per call                                          |
 * | logprobs, top_logprobs            | 400: Converse returns no log probabilities                        |
 * | frequency/presence_penalty != 0   | 400; logit_bias non-empty: 400; audio modality: 400               |
 * | reasoning_effort                  | 400 (use thinking)                                                |
 * | functions, function_call          | 400: use tools and tool_choice                                    |
 * | seed                              | dropped: best-effort in OpenAI too, Converse has no seed          |
 * | parallel_tool_calls               | dropped: Converse has no switch for it                            |
 * | user, metadata, store             | dropped: OpenAI bookkeeping with no Converse counterpart          |
 * | stream, stream_options, model     | carried by the URL / the stream translator                        |
 * | other unknown fields              | dropped                                                           |
 */
import { ValidationError } from '../../../core/errors.js';
import type { ChatRequest, ProviderTarget } from '../types.js';
import { CACHE_POINT, toConverseConversation } from './messages.js';
import type { ConverseRequestBody, ConverseToolConfig } from './wire.js';

function refuseUnsupported(request: ChatRequest): void {
  const refuse = (param: string, why: string) => {
    throw new ValidationError(`bedrock does not support ${param}: ${why}`, param);
  };
  if (request.n != null && request.n > 1) refuse('n', 'Converse returns one choice per call');
  if (request.logprobs) refuse('logprobs', 'Converse returns no log probabilities');
  if (request.top_logprobs != null) refuse('top_logprobs', 'Converse returns no log probabilities');
  if (request.frequency_penalty) refuse('frequency_penalty', 'Converse has no penalty parameters');
  if (request.presence_penalty) refuse('presence_penalty', 'Converse has no penalty parameters');
  if (request.logit_bias && Object.keys(request.logit_bias).length > 0) refuse('logit_bias', 'Converse has no token biases');
  if (request.reasoning_effort != null) refuse('reasoning_effort', 'use thinking with strict_openai_compliance off');
  if (request.modalities?.includes('audio')) refuse('modalities', 'Converse answers with text only');
  if (request.functions) refuse('functions', 'use tools');
  if (request.function_call) refuse('function_call', 'use tool_choice');
  if (request.response_format?.type === 'json_object') refuse('response_format', 'Converse has no schema-less JSON mode; send a json_schema');
}

function inferenceConfig(request: ChatRequest): ConverseRequestBody['inferenceConfig'] {
  const config: NonNullable<ConverseRequestBody['inferenceConfig']> = {};
  const maxTokens = request.max_completion_tokens ?? request.max_tokens;
  if (maxTokens != null) config.maxTokens = maxTokens;
  if (request.temperature != null) config.temperature = request.temperature;
  if (request.top_p != null) config.topP = request.top_p;
  if (request.stop != null) config.stopSequences = typeof request.stop === 'string' ? [request.stop] : request.stop;
  return Object.keys(config).length > 0 ? config : undefined;
}

function toolConfig(request: ChatRequest, usesTools: boolean): ConverseToolConfig | undefined {
  const tools = request.tools ?? [];
  const choice = request.tool_choice;
  if (choice === 'none') {
    if (usesTools) throw new ValidationError('bedrock cannot take tool_choice none in a conversation that holds tool calls', 'tool_choice');
    return undefined;
  }
  if (tools.length === 0) {
    if (choice !== undefined && choice !== 'auto') throw new ValidationError('tool_choice needs tools', 'tool_choice');
    return undefined;
  }
  const config: ConverseToolConfig = {
    tools: tools.flatMap(({ function: fn, cache_control: cacheControl }) => {
      const spec = {
        toolSpec: {
          name: fn.name,
          ...(fn.description ? { description: fn.description } : {}),
          inputSchema: { json: fn.parameters ?? { type: 'object', properties: {} } },
        },
      };
      return cacheControl ? [spec, CACHE_POINT] : [spec];
    }),
  };
  if (choice === 'auto') config.toolChoice = { auto: {} };
  else if (choice === 'required') config.toolChoice = { any: {} };
  else if (choice && typeof choice === 'object') config.toolChoice = { tool: { name: choice.function.name } };
  return config;
}

/** Anthropic models on Bedrock: ids like anthropic.claude-..., us.anthropic.claude-... or ARNs naming them. */
function isAnthropicModel(modelId: string): boolean {
  return /anthropic|claude/i.test(modelId);
}

function thinkingFields(request: ChatRequest, target: ProviderTarget): Record<string, unknown> | undefined {
  const thinking = request.thinking;
  // strict_openai_compliance on (the default): thinking is dropped, the answer stays pure OpenAI.
  if (!thinking || thinking.type !== 'enabled' || target.strictOpenAiCompliance !== false) return undefined;
  if (!isAnthropicModel(request.model)) throw new ValidationError('bedrock takes thinking for Anthropic models only', 'thinking');
  if (thinking.budget_tokens == null) throw new ValidationError('thinking on bedrock needs budget_tokens', 'thinking.budget_tokens');
  return { thinking: { type: 'enabled', budget_tokens: thinking.budget_tokens } };
}

function outputConfig(request: ChatRequest): ConverseRequestBody['outputConfig'] {
  const format = request.response_format;
  if (format?.type !== 'json_schema') return undefined;
  const { name, description, schema } = format.json_schema;
  return {
    textFormat: {
      type: 'json_schema',
      structure: { jsonSchema: { schema: JSON.stringify(schema ?? { type: 'object' }), name, ...(description ? { description } : {}) } },
    },
  };
}

export function toConverseBody(request: ChatRequest, target: ProviderTarget): ConverseRequestBody {
  refuseUnsupported(request);
  const conversation = toConverseConversation(request, { jsonToolResults: isAnthropicModel(request.model) });
  const body: ConverseRequestBody = { messages: conversation.messages };
  if (conversation.system.length > 0) body.system = conversation.system;
  const inference = inferenceConfig(request);
  if (inference) body.inferenceConfig = inference;
  const tools = toolConfig(request, conversation.usesTools);
  if (tools) body.toolConfig = tools;
  const additional = thinkingFields(request, target);
  if (additional) body.additionalModelRequestFields = additional;
  const output = outputConfig(request);
  if (output) body.outputConfig = output;
  return body;
}
