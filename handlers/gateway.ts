import { listModels as listGatewayModels } from '../gateway/catalog/models-list.js';
import { runChat } from '../gateway/chat/run-chat.js';
import { runProxy } from '../gateway/proxy/run-proxy.js';
import { STREAMED, body, type Handler } from './types.js';

export const createChatCompletion: Handler = async (c, call) => {
  const result = await runChat(call, body<'createChatCompletion'>(c));
  return result.completion ? { status: result.status, body: result.completion, headers: result.headers } : STREAMED;
};

export const listModels: Handler = async (_c, call) => ({ body: await listGatewayModels(call) });

/** `/v1/*`: the operation's path ends in `*`; what the request adds after its prefix goes to the provider. */
const passThrough: Handler = async (c, call) => {
  await runProxy(call, c.operation.path.slice(0, -1));
  return STREAMED;
};

export const proxyGet: Handler = passThrough;
export const proxyPost: Handler = passThrough;
export const proxyPut: Handler = passThrough;
export const proxyPatch: Handler = passThrough;
export const proxyDelete: Handler = passThrough;
