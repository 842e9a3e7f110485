import { serveMcpDelete, serveMcpGet, serveMcpPost } from '../../gateway/mcp/mcp-gateway.js';
import { DEFAULT_OAUTH_SCOPE, protectedResourceMetadata } from '../../core/auth/oauth/metadata.js';
import { principalOf } from '../../core/call.js';
import { NotFoundError } from '../../core/errors.js';
import { STREAMED, type Handler } from '../types.js';

const slugOf = (c: Parameters<Handler>[0]) => String(c.request.params.serverSlug);

export const postMcpGateway: Handler = async (c, call) => {
  await serveMcpPost(call, principalOf(call), slugOf(c), c.request.requestBody);
  return STREAMED;
};

export const getMcpGateway: Handler = async (c, call) => {
  await serveMcpGet(call, principalOf(call), slugOf(c));
  return STREAMED;
};

export const deleteMcpGateway: Handler = async (c, call) => {
  await serveMcpDelete(call, principalOf(call), slugOf(c));
  return STREAMED;
};

/** RFC 9728: what MCP clients read after a 401 to find gw's authorization server. */
export const getMcpProtectedResourceMetadata: Handler = async (c, call) => {
  const slug = slugOf(c);
  const server = await call.services.store.mcpServers.findBySlug(slug);
  if (!server) throw new NotFoundError('MCP server', slug);
  return { body: protectedResourceMetadata(call.services.config.publicUrl, `/${slug}/mcp`, [DEFAULT_OAUTH_SCOPE], server.name) };
};
