import type { Context } from 'openapi-backend';
import { ApiError, UnauthorizedError } from '../../../core/errors.js';
import type { Principal } from '../../../core/auth/principal.js';
import { wwwAuthenticate } from '../../../core/auth/oauth/metadata.js';

const isOAuthResource = (c: Context) => (c.operation as { 'x-gw-oauth-resource'?: boolean } | undefined)?.['x-gw-oauth-resource'] === true;

/**
 * RFC 8707: an access token issued for a resource is good at that resource only, so a token bound
 * to one MCP server's endpoint is refused on another's.
 */
export function assertTokenResource(c: Context, principal: Principal, publicUrl: string): void {
  const bound = principal.oauthResource?.replace(/\/+$/, '');
  if (bound === undefined || !isOAuthResource(c)) return;
  const here = `${publicUrl}${c.request.path.split('?')[0]!.replace(/\/+$/, '')}`;
  if (bound !== here) throw new UnauthorizedError(`This access token was issued for ${bound}, not for ${here}`, 'invalid_token');
}

/**
 * `x-gw-oauth-resource` operations (the MCP gateway) are OAuth protected resources: a 401 carries
 * `WWW-Authenticate: Bearer resource_metadata="..."` pointing at the path's RFC 9728 metadata, so
 * MCP clients can discover the authorization server; a missing scope says insufficient_scope.
 */
export function withResourceChallenge(c: Context, error: unknown, publicUrl: string): unknown {
  if (!isOAuthResource(c) || !(error instanceof ApiError)) return error;
  const scopeMissing = error.status === 403 && error.code === 'missing_scope';
  if (error.status !== 401 && !scopeMissing) return error;
  const path = c.request.path.split('?')[0]!;
  const presented = c.request.headers.authorization !== undefined || c.request.headers['x-gw-api-key'] !== undefined;
  const challenge = wwwAuthenticate(publicUrl, path, scopeMissing ? 'insufficient_scope' : presented ? 'invalid_token' : undefined);
  return new ApiError(error.status, error.code, error.message, error.type, { param: error.param, headers: { ...error.headers, 'www-authenticate': challenge }, cause: error });
}
