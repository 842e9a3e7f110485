import { listModels as listGatewayModels } from '../gateway/catalog/models-list.js';
import { encodedEmbeddings } from '../gateway/chat/embedding-encoding.js';
import { runChat } from '../gateway/chat/run-chat.js';
import { chatRequestOf, toTextCompletion } from '../gateway/chat/text-completion.js';
import { isChatCompletion } from '../gateway/chat/upstream-answer.js';
import { STREAMED, body, type Handler } from './types.js';

export const createChatCompletion: Handler = async (c, call) => {
  const result = await runChat(call, body<'createChatCompletion'>(c));
  return result.completion ? { status: result.status, body: result.completion, headers: result.headers } : STREAMED;
};

export const createEmbedding: Handler = async (c, call) => {
  const request = body<'createEmbedding'>(c);
  const result = await runChat(call, request, { endpoint: 'embeddings' });
  const answer = result.completion;
  const list = answer && !isChatCompletion(answer) ? encodedEmbeddings(answer, request.encoding_format) : answer;
  return { status: result.status, body: list, headers: result.headers };
};

export const createCompletion: Handler = async (c, call) => {
  const legacy = body<'createCompletion'>(c);
  const result = await runChat(call, chatRequestOf(legacy), { endpoint: 'completions', textCompletion: legacy });
  const answer = result.completion;
  if (!answer) return STREAMED;
  if (!isChatCompletion(answer)) return { status: result.status, body: answer, headers: result.headers };
  const hookResults = (answer as { hook_results?: unknown }).hook_results;
  return { status: result.status, body: { ...toTextCompletion(answer), ...(hookResults ? { hook_results: hookResults } : {}) }, headers: result.headers };
};

export const listModels: Handler = async (_c, call) => ({ body: await listGatewayModels(call) });
