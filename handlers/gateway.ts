import { listModels as listGatewayModels } from '../gateway/catalog/models-list.js';
import { runChat } from '../gateway/chat/run-chat.js';
import { runEmbeddings, runTextCompletion } from '../gateway/chat/run-operations.js';
import { STREAMED, body, type Handler } from './types.js';

export const createChatCompletion: Handler = async (c, call) => {
  const result = await runChat(call, body<'createChatCompletion'>(c));
  return result.completion ? { status: result.status, body: result.completion, headers: result.headers } : STREAMED;
};

export const createEmbedding: Handler = async (c, call) => {
  const result = await runEmbeddings(call, body<'createEmbedding'>(c));
  return { status: result.status, body: result.body, headers: result.headers };
};

export const createCompletion: Handler = async (c, call) => {
  const result = await runTextCompletion(call, body<'createCompletion'>(c));
  return result.body ? { status: result.status, body: result.body, headers: result.headers } : STREAMED;
};

export const listModels: Handler = async (_c, call) => ({ body: await listGatewayModels(call) });
