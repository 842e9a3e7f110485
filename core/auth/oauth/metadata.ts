/**
 * The documents OAuth clients discover gw by: the authorization server's metadata (RFC 8414)
 * and, for any protected resource path (the API, an MCP server's endpoint), its protected
 * resource metadata (RFC 9728) and the WWW-Authenticate challenge that points to it.
 */

/** Scopes a client may ask for; mcp.invoke is what MCP clients need and the default. */
export const DEFAULT_OAUTH_SCOPE = 'mcp.invoke';

export function authorizationServerMetadata(publicUrl: string, scopes: readonly string[]) {
  return {
    issuer: publicUrl,
    authorization_endpoint: `${publicUrl}/oauth/authorize`,
    token_endpoint: `${publicUrl}/oauth/token`,
    registration_endpoint: `${publicUrl}/oauth/register`,
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none', 'client_secret_post', 'client_secret_basic'],
    scopes_supported: [...scopes],
    service_documentation: `${publicUrl}/docs/identity.md`,
  };
}

/** Where the metadata of a resource path lives: the well-known prefix, then the path (RFC 9728 section 3.1). */
export function protectedResourceMetadataUrl(publicUrl: string, resourcePath: string): string {
  const path = resourcePath === '/' ? '' : resourcePath.replace(/\/+$/, '');
  return `${publicUrl}/.well-known/oauth-protected-resource${path}`;
}

export function protectedResourceMetadata(publicUrl: string, resourcePath: string, scopes: readonly string[] = [DEFAULT_OAUTH_SCOPE], name = 'gw') {
  return {
    resource: `${publicUrl}${resourcePath}`,
    authorization_servers: [publicUrl],
    scopes_supported: [...scopes],
    bearer_methods_supported: ['header'],
    resource_name: name,
  };
}

/** The challenge a protected resource answers a request without a valid token with (RFC 9728 section 5.1). */
export function wwwAuthenticate(publicUrl: string, resourcePath: string, error?: 'invalid_token' | 'insufficient_scope'): string {
  const parts = [`resource_metadata="${protectedResourceMetadataUrl(publicUrl, resourcePath)}"`];
  if (error) parts.push(`error="${error}"`);
  return `Bearer ${parts.join(', ')}`;
}
