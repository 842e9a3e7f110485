import { randomBytes } from 'node:crypto';
import { AGENT_CARD_MAX_BYTES, assertAgentCard } from '../../gateway/agents/agent-card-fetcher.js';
import { principalOf, type Call } from '../../core/call.js';
import { ConflictError, NotFoundError, ValidationError } from '../../core/errors.js';
import type { AgentIntegrationRecord } from '../../store/repositories/agent-integrations.js';
import { body, pathId, query, type Handler } from '../types.js';
import { AGENT_INTEGRATIONS_TOPIC } from '../../gateway/a2a/agent-directory.js';
import { agentGatewayUrl } from '../../gateway/a2a/gateway-url.js';
import { resolveWorkspaceIds, slugFromName } from '../workspace-target.js';
import { sealClientTls, unsavedClientTls, type ClientTlsInput } from './client-tls.js';
import { assertAuthFits, sealAgentAuth, vetTokenUrl, type AgentAuthConfig, type AgentAuthType } from './auth-config.js';

interface AgentIntegrationInput {
  name?: string;
  slug?: string;
  description?: string | null;
  url?: string;
  auth_type?: AgentAuthType;
  auth_config?: AgentAuthConfig;
  client_tls?: ClientTlsInput | null;
  agent_card?: Record<string, unknown> | null;
  workspace_ids?: string[] | null;
  allowed_skills?: string[] | null;
  input_guardrails?: string[];
  output_guardrails?: string[];
}

function present(call: Call, record: AgentIntegrationRecord) {
  return {
    id: record.id,
    object: 'agent-integration' as const,
    organisation_id: record.organisation_id,
    name: record.name,
    slug: record.slug,
    description: record.description,
    url: record.url,
    auth_type: record.auth_type,
    auth_config: record.auth_config,
    client_tls: record.client_tls,
    agent_card: record.agent_card,
    workspace_ids: record.workspace_ids,
    allowed_skills: record.allowed_skills,
    input_guardrails: record.input_guardrails,
    output_guardrails: record.output_guardrails,
    gateway_url: agentGatewayUrl(call.services.config.publicUrl, record.slug),
    status: record.status,
    created_at: record.created_at,
    updated_at: record.updated_at,
  };
}

/** A card given in a body meets the same rules as a fetched one: name, url, at most 1 MB. */
function checkedCard(card: Record<string, unknown> | null | undefined): Record<string, unknown> | null | undefined {
  if (card === undefined || card === null) return card;
  if (Buffer.byteLength(JSON.stringify(card)) > AGENT_CARD_MAX_BYTES) {
    throw new ValidationError('agent_card is over 1 MB; an agent card may be at most 1 MB', 'agent_card', 'agent_card_too_large');
  }
  assertAgentCard(card, 'agent_card');
  return card;
}

async function find(call: Call, idOrSlug: string): Promise<AgentIntegrationRecord> {
  const record = await call.services.store.agentIntegrations.find(principalOf(call).organisationId, idOrSlug);
  if (!record) throw new NotFoundError('Agent integration', idOrSlug);
  return record;
}

const isoNow = (call: Call) => new Date(call.services.now()).toISOString();

/** Guardrails named on an integration must exist in its organisation. */
async function guardrailNames(call: Call, names: string[] | undefined, param: string): Promise<string[] | undefined> {
  for (const [index, name] of (names ?? []).entries()) {
    if (!(await call.services.store.guardrails.find(principalOf(call).organisationId, name))) {
      throw new ValidationError(`No guardrail ${name} in this organisation`, `${param}[${index}]`, 'unknown_guardrail');
    }
  }
  return names;
}

/** Workspace ids or slugs -> ids (null stays null: every workspace). */
async function workspaceIds(call: Call, named: string[] | null | undefined): Promise<string[] | null | undefined> {
  if (named === undefined || named === null) return named;
  return resolveWorkspaceIds(call, principalOf(call).organisationId, named);
}

export const createAgentIntegration: Handler = async (c, call) => {
  const principal = principalOf(call);
  const input = body<'createAgentIntegration'>(c) as AgentIntegrationInput & { name: string; url: string };
  const { store, secrets } = call.services;
  // The agent's card and messages are fetched through the same guard, with the same answer.
  await call.services.outbound.vet(input.url, { param: 'url', code: 'agent_card_url_refused' });
  await vetTokenUrl(call, input.auth_config);
  let slug = input.slug ?? slugFromName(input.name);
  if (await store.agentIntegrations.slugTaken(principal.organisationId, slug)) {
    if (input.slug) throw new ConflictError(`An agent integration with slug ${slug} exists`, 'slug_taken', 'slug');
    slug = `${slug}-${randomBytes(3).toString('hex')}`;
  }
  const authType = input.auth_type ?? 'none';
  const record = await store.agentIntegrations.create(
    {
      organisation_id: principal.organisationId,
      name: input.name,
      slug,
      description: input.description ?? null,
      url: input.url,
      auth_type: authType,
      ...sealAgentAuth(secrets, authType, input.auth_config, undefined),
      ...(sealClientTls(secrets, input.client_tls, undefined) ?? { client_tls: null, client_tls_key: null }),
      agent_card: checkedCard(input.agent_card) ?? null,
      workspace_ids: (await workspaceIds(call, input.workspace_ids)) ?? null,
      allowed_skills: input.allowed_skills ?? null,
      input_guardrails: (await guardrailNames(call, input.input_guardrails, 'input_guardrails')) ?? [],
      output_guardrails: (await guardrailNames(call, input.output_guardrails, 'output_guardrails')) ?? [],
    },
    isoNow(call),
  );
  await call.services.bus.publish(AGENT_INTEGRATIONS_TOPIC, record.id);
  return { status: 201, body: present(call, record) };
};

export const listAgentIntegrations: Handler = async (c, call) => {
  const q = query<'listAgentIntegrations'>(c);
  const page = await call.services.store.agentIntegrations.list(principalOf(call).organisationId, { search: q.search }, q);
  return { body: { ...page, data: page.data.map((record) => present(call, record)) } };
};

export const getAgentIntegration: Handler = async (c, call) => ({ body: present(call, await find(call, pathId(c))) });

export const updateAgentIntegration: Handler = async (c, call) => {
  const principal = principalOf(call);
  const record = await find(call, pathId(c));
  const input = body<'updateAgentIntegration'>(c) as AgentIntegrationInput;
  const { store, secrets } = call.services;
  if (input.slug !== undefined && input.slug !== record.slug && (await store.agentIntegrations.slugTaken(principal.organisationId, input.slug))) {
    throw new ConflictError(`An agent integration with slug ${input.slug} exists`, 'slug_taken', 'slug');
  }
  if (input.url !== undefined) await call.services.outbound.vet(input.url, { param: 'url', code: 'agent_card_url_refused' });
  await vetTokenUrl(call, input.auth_config);
  const changes: Partial<AgentIntegrationRecord> = {};
  if (input.auth_type !== undefined || input.auth_config !== undefined) {
    const authType = input.auth_type ?? record.auth_type;
    // A new auth type starts from an empty auth_config rather than inheriting the old one's secrets.
    Object.assign(changes, { auth_type: authType }, sealAgentAuth(secrets, authType, input.auth_config, authType === record.auth_type ? record : undefined));
  }
  Object.assign(changes, sealClientTls(secrets, input.client_tls, record));
  if (input.name !== undefined) changes.name = input.name;
  if (input.slug !== undefined) changes.slug = input.slug;
  if (input.description !== undefined) changes.description = input.description;
  if (input.url !== undefined) changes.url = input.url;
  if (input.agent_card !== undefined) changes.agent_card = checkedCard(input.agent_card) ?? null;
  if (input.workspace_ids !== undefined) changes.workspace_ids = (await workspaceIds(call, input.workspace_ids)) ?? null;
  if (input.allowed_skills !== undefined) changes.allowed_skills = input.allowed_skills;
  if (input.input_guardrails !== undefined) changes.input_guardrails = await guardrailNames(call, input.input_guardrails, 'input_guardrails');
  if (input.output_guardrails !== undefined) changes.output_guardrails = await guardrailNames(call, input.output_guardrails, 'output_guardrails');
  await store.agentIntegrations.update(principal.organisationId, record.id, changes, isoNow(call));
  await call.services.bus.publish(AGENT_INTEGRATIONS_TOPIC, record.id);
  return { body: present(call, (await store.agentIntegrations.find(principal.organisationId, record.id))!) };
};

export const deleteAgentIntegration: Handler = async (c, call) => {
  const principal = principalOf(call);
  const record = await find(call, pathId(c));
  await call.services.store.agentIntegrations.delete(principal.organisationId, record.id);
  await call.services.bus.publish(AGENT_INTEGRATIONS_TOPIC, record.id);
  return { body: { id: record.id, object: 'agent-integration', deleted: true } };
};

export const fetchAgentCard: Handler = async (c, call) => {
  const input = body<'fetchAgentCard'>(c) as { url: string; auth_type?: AgentAuthType; auth_config?: AgentAuthConfig; client_tls?: ClientTlsInput };
  const authType = input.auth_type ?? 'none';
  const auth = input.auth_config ?? {};
  assertAuthFits(authType, auth);
  const tls = unsavedClientTls(input.client_tls);
  await vetTokenUrl(call, auth);
  return { body: await call.services.agentCards.fetchCard(input.url, await call.services.agentAuth.headers(authType, auth), tls) };
};
