import { authorizationServerMetadata, protectedResourceMetadata } from '../../core/auth/oauth/metadata.js';
import { allScopes } from '../../core/scopes.js';
import type { Handler } from '../types.js';

export const getOAuthAuthorizationServerMetadata: Handler = async (_c, call) => ({
  body: authorizationServerMetadata(call.services.config.publicUrl, allScopes()),
});

/** The gw API under /v1 as one protected resource; MCP servers publish their own with the same generator. */
export const getOAuthProtectedResourceMetadata: Handler = async (_c, call) => ({
  body: protectedResourceMetadata(call.services.config.publicUrl, '/v1', allScopes()),
});
