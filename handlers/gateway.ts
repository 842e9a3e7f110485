import { listModels as listGatewayModels } from '../gateway/catalog/models-list.js';
import { runChat } from '../gateway/chat/run-chat.js';
import { anthropicModelList } from '../gateway/messages/model-list.js';
import { runProxy } from '../gateway/proxy/run-proxy.js';
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

/** Anthropic clients (the SDK, Claude Code) send anthropic-version and read Anthropic's list shape. */
export const listModels: Handler = async (_c, call) => {
  const list = await listGatewayModels(call);
  return { body: call.req.headers['anthropic-version'] === undefined ? list : anthropicModelList(list) };
};

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
