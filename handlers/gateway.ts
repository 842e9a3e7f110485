import { listModels as listGatewayModels } from '../gateway/catalog/models-list.js';
import { runChat } from '../gateway/chat/run-chat.js';
import { STREAMED, body, type Handler } from './types.js';

export const createChatCompletion: Handler = async (c, call) => {
  const result = await runChat(call, body<'createChatCompletion'>(c));
  return result.completion ? { status: result.status, body: result.completion, headers: result.headers } : STREAMED;
};

export const listModels: Handler = async (_c, call) => ({ body: await listGatewayModels(call) });
