import { a2aCardFor, serveA2aPost } from '../../gateway/a2a/a2a-gateway.js';
import { principalOf } from '../../core/call.js';
import { STREAMED, type Handler } from '../types.js';

const slugOf = (c: Parameters<Handler>[0]) => String(c.request.params.agentSlug);

export const getA2aAgentCard: Handler = async (c, call) => ({ body: await a2aCardFor(call, principalOf(call), slugOf(c)) });

export const postA2aGateway: Handler = async (c, call) => {
  await serveA2aPost(call, principalOf(call), slugOf(c), c.request.requestBody);
  return STREAMED;
};
