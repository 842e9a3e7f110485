import { listModels as listGatewayModels } from '../gateway/catalog/models-list.js';
import { runChat } from '../gateway/chat/run-chat.js';
import { STREAMED, body, type Handler } from './types.js';

import { notImplemented } from './not-implemented.js';
export const createChatCompletion: Handler = async (c, call) => {
  const result = await runChat(call, body<'createChatCompletion'>(c));
  return result.completion ? { status: result.status, body: result.completion, headers: result.headers } : STREAMED;
};

export const listModels: Handler = async (_c, call) => ({ body: await listGatewayModels(call) });

// gw:handler-stub: written by `make generate`; answers 501 until implemented (`make check` fails while it remains).
export const createEmbedding: Handler = notImplemented('createEmbedding');

// gw:handler-stub: written by `make generate`; answers 501 until implemented (`make check` fails while it remains).
export const createCompletion: Handler = notImplemented('createCompletion');
