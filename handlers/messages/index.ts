import { countTokens } from '../../gateway/messages/count-tokens.js';
import { runMessages } from '../../gateway/messages/run-messages.js';
import { STREAMED, body, type Handler } from '../types.js';

export const createAnthropicMessage: Handler = async (c, call) => {
  const result = await runMessages(call, body<'createAnthropicMessage'>(c));
  return result.body === undefined ? STREAMED : { status: result.status, body: result.body, headers: result.headers };
};

export const countAnthropicMessageTokens: Handler = async (c, call) => {
  const result = await countTokens(call, body<'countAnthropicMessageTokens'>(c));
  return { body: result.body, headers: result.headers };
};
