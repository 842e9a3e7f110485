import { a2aCardFor, serveA2aPost } from '../../gateway/a2a/a2a-gateway.js';
import { serveA2aRest } from '../../gateway/a2a/rest-binding.js';
import { serveA2aRestV03 } from '../../gateway/a2a/rest-v03-binding.js';
import { principalOf } from '../../core/call.js';
import { STREAMED, type Handler } from '../types.js';

const slugOf = (c: Parameters<Handler>[0]) => String(c.request.params.agentSlug);

export const getA2aAgentCard: Handler = async (c, call) => ({ body: await a2aCardFor(call, principalOf(call), slugOf(c)) });

export const postA2aGateway: Handler = async (c, call) => {
  await serveA2aPost(call, principalOf(call), slugOf(c), c.request.requestBody);
  return STREAMED;
};

/** The HTTP+JSON binding's routes: one handler for every method, the route read from the rest of the path. */
const a2aRest: Handler = async (c, call) => {
  await serveA2aRest(call, principalOf(call), slugOf(c), String(c.request.params.a2aRestPath), c.request.requestBody);
  return STREAMED;
};
export const getA2aRest = a2aRest;
export const postA2aRest = a2aRest;
export const deleteA2aRest = a2aRest;

/** A2A 0.3's HTTP+JSON routes (under `v1/`): the route read from the rest of the path. */
const a2aRestV03: Handler = async (c, call) => {
  await serveA2aRestV03(call, principalOf(call), slugOf(c), String(c.request.params.a2aRestPath), c.request.requestBody);
  return STREAMED;
};
export const getA2aRestV03 = a2aRestV03;
export const postA2aRestV03 = a2aRestV03;
export const deleteA2aRestV03 = a2aRestV03;
