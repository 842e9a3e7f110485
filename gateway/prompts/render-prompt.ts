/**
 * A resolved prompt plus the caller's variables and chat parameters -> the chat request gw
 * sends: the template rendered with mustache (HTML escaping off), the version's model,
 * parameters, tools, tool_choice and functions, then the caller's parameters on top.
 */
import Mustache from 'mustache';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { ValidationError } from '../../core/errors.js';
import { toValidationError } from '../../core/validation-message.js';
import type { ChatRequest } from '../providers/types.js';
import { specSchema } from '../spec-schemas.js';
import type { ResolvedPrompt } from './resolved-prompt.js';
import { missingVariable, parseTemplate } from './template-tokens.js';

/** Values are written as they are: prompts are not HTML. */
const NO_ESCAPING = { escape: (value: unknown) => String(value) };

let chatRequestSchema: ValidateFunction | undefined;

function render(template: string, variables: Record<string, unknown>, resolved: ResolvedPrompt, param: string): string {
  if (resolved.fields.is_raw_template === 1) return template;
  const tokens = parseTemplate(template, param);
  const missing = missingVariable(tokens, variables, (name) => parseTemplate(resolved.partials[name]!, `partials.${name}`));
  if (missing !== undefined) {
    throw new ValidationError(`The template needs the variable ${missing}, which variables does not hold`, `variables.${missing}`, 'missing_variable');
  }
  return Mustache.render(template, variables, resolved.partials, NO_ESCAPING);
}

function renderMessages(resolved: ResolvedPrompt, variables: Record<string, unknown>): Array<Record<string, unknown>> {
  const template = resolved.fields.string;
  if (typeof template === 'string') return [{ role: 'user', content: render(template, variables, resolved, 'string') }];
  return (template as Array<Record<string, unknown>>).map((message, i) => {
    const content = message.content;
    if (typeof content === 'string') return { ...message, content: render(content, variables, resolved, `string[${i}].content`) };
    if (!Array.isArray(content)) return message;
    const parts = content.map((part: Record<string, unknown>, j) =>
      part.type === 'text' && typeof part.text === 'string' ? { ...part, text: render(part.text, variables, resolved, `string[${i}].content[${j}].text`) } : part,
    );
    return { ...message, content: parts };
  });
}

const omitEmpty = (entries: Record<string, unknown>) => Object.fromEntries(Object.entries(entries).filter(([, value]) => value !== null && value !== undefined));

/** `body` is the render or completion body: `variables` plus chat parameters at its root. */
export function renderChatRequest(resolved: ResolvedPrompt, body: Record<string, unknown>): ChatRequest {
  const { variables = {}, ...overrides } = body as { variables?: Record<string, unknown> };
  const { fields } = resolved;
  const request = {
    ...omitEmpty({ model: fields.model, ...(fields.parameters ?? {}), tools: fields.tools, tool_choice: fields.tool_choice, functions: fields.functions }),
    messages: renderMessages(resolved, variables),
    ...overrides,
  };
  chatRequestSchema ??= specSchema('ChatCompletionRequest');
  if (!chatRequestSchema(request)) {
    const errors = (chatRequestSchema.errors ?? []).map((error: ErrorObject) => ({ ...error, instancePath: `/requestBody${error.instancePath}` }));
    throw toValidationError(errors);
  }
  return request as unknown as ChatRequest;
}
