/**
 * OpenAI chat request -> Anthropic Messages request body. Shared with vertex-ai (Claude through
 * rawPredict), which swaps `model` for `anthropic_version`.
 *
 * Parameter rules:
 * | parameter                         | rule                                                                  |
 * |-----------------------------------|-----------------------------------------------------------------------|
 * | max_completion_tokens, max_tokens | max_tokens (max_completion_tokens wins). Anthropic requires it: when   |
 * |                                   | absent, DEFAULT_MAX_TOKENS (4096), plus budget_tokens with thinking    |
 * | temperature                       | temperature; above 1 is a 400 (Anthropic takes 0 to 1)                 |
 * | top_p, stop                       | top_p / stop_sequences                                                 |
 * | tools                             | tools {name, description, input_schema}; cache_control kept; `strict` |
 * |                                   | dropped                                                               |
 * | tool_choice                       | auto -> auto, none -> none, required -> any, named -> tool            |
 * | parallel_tool_calls: false        | tool_choice.disable_parallel_tool_use                                 |
 * | response_format json_schema       | output_config.format (Anthropic structured outputs)                   |
 * | response_format json_object       | 400: Anthropic has no schema-less JSON mode; send a json_schema       |
 * | thinking                          | strict_openai_compliance false: thinking {type, budget_tokens};       |
 * |                                   | strict on (the default): dropped, the answer stays pure OpenAI         |
 * | user                              | metadata.user_id                                                      |
 * | n > 1                             | 400: one choice per call                                              |
 * | logprobs, top_logprobs            | 400: Anthropic returns no log probabilities                           |
 * | frequency/presence_penalty != 0   | 400; logit_bias non-empty: 400; audio modality: 400                   |
 * | reasoning_effort                  | 400 (use thinking)                                                    |
 * | functions, function_call          | 400: use tools and tool_choice                                        |
 * | seed                              | dropped: best-effort in OpenAI too, Anthropic has no seed             |
 * | metadata, store, other fields     | dropped: OpenAI bookkeeping with no Anthropic counterpart             |
 */
import { ValidationError } from '../../../core/errors.js';
import type { ChatRequest, ProviderTarget } from '../types.js';
import { toAnthropicConversation } from './messages.js';
import type { AnthropicMessagesBody, AnthropicTool, AnthropicToolChoice } from './wire.js';

/** max_tokens sent when the caller gives none: the Messages API requires one. */
export const DEFAULT_MAX_TOKENS = 4096;

function refuseUnsupported(request: ChatRequest): void {
  const refuse = (param: string, why: string) => {
    throw new ValidationError(`anthropic does not support ${param}: ${why}`, param);
  };
  if (request.n != null && request.n > 1) refuse('n', 'the Messages API returns one choice per call');
  if (request.logprobs) refuse('logprobs', 'the Messages API returns no log probabilities');
  if (request.top_logprobs != null) refuse('top_logprobs', 'the Messages API returns no log probabilities');
  if (request.frequency_penalty) refuse('frequency_penalty', 'the Messages API has no penalty parameters');
  if (request.presence_penalty) refuse('presence_penalty', 'the Messages API has no penalty parameters');
  if (request.logit_bias && Object.keys(request.logit_bias).length > 0) refuse('logit_bias', 'the Messages API has no token biases');
  if (request.reasoning_effort != null) refuse('reasoning_effort', 'use thinking with strict_openai_compliance off');
  if (request.modalities?.includes('audio')) refuse('modalities', 'the Messages API answers with text only');
  if (request.functions) refuse('functions', 'use tools');
  if (request.function_call) refuse('function_call', 'use tool_choice');
  if (request.response_format?.type === 'json_object') refuse('response_format', 'there is no schema-less JSON mode; send a json_schema');
  if (request.temperature != null && request.temperature > 1) refuse('temperature', 'it takes 0 to 1');
}

function toolsOf(request: ChatRequest): AnthropicTool[] | undefined {
  if (!request.tools || request.tools.length === 0) return undefined;
  return request.tools.map(({ function: fn, cache_control }) => ({
    name: fn.name,
    ...(fn.description ? { description: fn.description } : {}),
    input_schema: fn.parameters ?? { type: 'object', properties: {} },
    ...(cache_control ? { cache_control } : {}),
  }));
}

function toolChoiceOf(request: ChatRequest, hasTools: boolean): AnthropicToolChoice | undefined {
  const choice = request.tool_choice;
  const noParallel = request.parallel_tool_calls === false ? { disable_parallel_tool_use: true } : {};
  if (!hasTools) {
    if (choice === 'required' || typeof choice === 'object') throw new ValidationError('tool_choice needs tools', 'tool_choice');
    return undefined;
  }
  if (choice === 'none') return { type: 'none' };
  if (choice === 'required') return { type: 'any', ...noParallel };
  if (choice && typeof choice === 'object') return { type: 'tool', name: choice.function.name, ...noParallel };
  if (choice === 'auto' || request.parallel_tool_calls === false) return { type: 'auto', ...noParallel };
  return undefined;
}

function thinkingOf(request: ChatRequest, target: ProviderTarget): AnthropicMessagesBody['thinking'] {
  const thinking = request.thinking;
  if (!thinking || target.strictOpenAiCompliance !== false) return undefined;
  if (thinking.type === 'disabled') return { type: 'disabled' };
  if (thinking.budget_tokens == null) throw new ValidationError('thinking on anthropic needs budget_tokens', 'thinking.budget_tokens');
  return { type: 'enabled', budget_tokens: thinking.budget_tokens };
}

export function toAnthropicBody(request: ChatRequest, target: ProviderTarget, stream: boolean): AnthropicMessagesBody {
  refuseUnsupported(request);
  const conversation = toAnthropicConversation(request.messages);
  const thinking = thinkingOf(request, target);
  const thinkingBudget = thinking?.type === 'enabled' ? thinking.budget_tokens : 0;
  const body: AnthropicMessagesBody = {
    model: request.model,
    messages: conversation.messages,
    max_tokens: request.max_completion_tokens ?? request.max_tokens ?? DEFAULT_MAX_TOKENS + thinkingBudget,
  };
  if (conversation.system.length > 0) body.system = conversation.system;
  if (request.stop != null) body.stop_sequences = typeof request.stop === 'string' ? [request.stop] : request.stop;
  if (request.temperature != null) body.temperature = request.temperature;
  if (request.top_p != null) body.top_p = request.top_p;
  const tools = toolsOf(request);
  if (tools) body.tools = tools;
  const toolChoice = toolChoiceOf(request, tools !== undefined);
  if (toolChoice) body.tool_choice = toolChoice;
  if (thinking) body.thinking = thinking;
  if (request.response_format?.type === 'json_schema') {
    body.output_config = { format: { type: 'json_schema', schema: request.response_format.json_schema.schema ?? { type: 'object' } } };
  }
  if (request.user) body.metadata = { user_id: request.user };
  if (stream) body.stream = true;
  return body;
}
