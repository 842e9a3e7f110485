import type { components } from '../../generated/types.js';
import { hashOpaqueToken, newOpaqueToken, TOKEN_PREFIXES } from '../../core/auth/opaque-token.js';
import { actorOf } from '../../core/auth/principal.js';
import { SCIM_TOKENS_TOPIC } from '../../core/auth/topics.js';
import { principalOf, type Call } from '../../core/call.js';
import { NotFoundError } from '../../core/errors.js';
import type { ScimToken } from '../../store/repositories/scim-tokens.js';
import { maskSecret } from '../../store/secret-box.js';
import { body, pathId, query, type Handler } from '../types.js';
import { isoNow } from '../workspace-access.js';
import { SCIM_BASE_PATH } from './scim-resources.js';

type TokenBody = components['schemas']['ScimTokenWithSecret'];

const present = (token: ScimToken) => ({ id: token.id, object: 'scim_token' as const, name: token.name, masked_token: token.masked_token, created_at: token.created_at });

export const createScimToken: Handler = async (c, call) => {
  const principal = principalOf(call);
  const secret = newOpaqueToken(TOKEN_PREFIXES.scim);
  const token = await call.services.store.scimTokens.create(
    { organisation_id: principal.organisationId, name: body<'createScimToken'>(c).name, token_hash: hashOpaqueToken(secret), masked_token: maskSecret(secret), created_by: actorOf(principal) },
    isoNow(call),
  );
  const answer: TokenBody = { ...present(token), token: secret, scim_base_url: `${call.services.config.publicUrl}${SCIM_BASE_PATH}` };
  return { status: 201, body: answer };
};

export const listScimTokens: Handler = async (c, call) => {
  const input = query<'listScimTokens'>(c);
  const page = await call.services.store.scimTokens.list(principalOf(call).organisationId, { limit: input.limit, cursor: input.cursor });
  return { body: { ...page, data: page.data.map(present) } };
};

export const revokeScimToken: Handler = async (c, call: Call) => {
  const { store, bus } = call.services;
  if (!(await store.scimTokens.revoke(principalOf(call).organisationId, pathId(c), isoNow(call)))) throw new NotFoundError('SCIM token', pathId(c));
  await bus.publish(SCIM_TOKENS_TOPIC, pathId(c));
  return { body: { success: true } };
};
