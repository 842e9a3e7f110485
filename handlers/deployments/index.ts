import { randomBytes } from 'node:crypto';
import { API_KEYS_TOPIC } from '../../core/auth/topics.js';
import { actorOf } from '../../core/auth/principal.js';
import { generateApiKeySecret, hashApiKeySecret, maskApiKeySecret } from '../../core/auth/api-key-secret.js';
import { principalOf, type Call } from '../../core/call.js';
import { ConflictError, NotFoundError } from '../../core/errors.js';
import type { DeploymentRecord } from '../../store/repositories/deployments.js';
import { body, pathId, query, type Handler } from '../types.js';
import { slugFromName } from '../workspace-target.js';
import { unsupportedPolicies } from './version-gates.js';
import { callingDeployment } from './calling-deployment.js';

export { deploymentShipLogs, deploymentSync } from './sync.js';
export { deploymentCounters } from './counters.js';

/** How often a self-hosted gateway heartbeats; three missed intervals make it `unreachable`. */
const HEARTBEAT_INTERVAL_SECONDS = 15;
const SYNC_SCOPE = 'deployments.sync';

interface DeploymentInput {
  name?: string;
  slug?: string;
  description?: string | null;
  tags?: Record<string, string>;
  source_type?: string;
  gateway_base_url?: string | null;
  mcp_gateway_base_url?: string | null;
}

function statusOf(record: DeploymentRecord, now: number): 'pending' | 'active' | 'unreachable' {
  if (record.last_heartbeat_at === null) return 'pending';
  return now - Date.parse(record.last_heartbeat_at) <= 3 * HEARTBEAT_INTERVAL_SECONDS * 1000 ? 'active' : 'unreachable';
}

async function present(call: Call, record: DeploymentRecord) {
  const key = await call.services.store.apiKeys.get(record.organisation_id, record.api_key_id);
  return {
    id: record.id,
    object: 'deployment' as const,
    organisation_id: record.organisation_id,
    name: record.name,
    slug: record.slug,
    description: record.description,
    tags: record.tags,
    source_type: record.source_type,
    gateway_base_url: record.gateway_base_url,
    mcp_gateway_base_url: record.mcp_gateway_base_url,
    version: record.version,
    last_heartbeat_at: record.last_heartbeat_at,
    status: statusOf(record, call.services.now()),
    unsupported_policies: await unsupportedPolicies(call.services.store, record.organisation_id, record.version),
    masked_key: key?.masked_key ?? '',
    created_at: record.created_at,
    updated_at: record.updated_at,
  };
}

async function find(call: Call, idOrSlug: string): Promise<DeploymentRecord> {
  const record = await call.services.store.deployments.find(principalOf(call).organisationId, idOrSlug);
  if (!record) throw new NotFoundError('Deployment', idOrSlug);
  return record;
}

const isoNow = (call: Call) => new Date(call.services.now()).toISOString();

export const createDeployment: Handler = async (c, call) => {
  const principal = principalOf(call);
  const input = body<'createDeployment'>(c) as DeploymentInput & { name: string };
  const { store } = call.services;
  let slug = input.slug ?? slugFromName(input.name);
  if (await store.deployments.slugTaken(principal.organisationId, slug)) {
    if (input.slug) throw new ConflictError(`A deployment with slug ${slug} exists`, 'slug_taken', 'slug');
    slug = `${slug}-${randomBytes(3).toString('hex')}`;
  }
  // The deployment key is an organisation service key that can do nothing but sync (hashed like every key).
  const secret = generateApiKeySecret();
  const now = isoNow(call);
  const record = await store.transaction(async (tx) => {
    const key = await tx.apiKeys.create(
      {
        organisation_id: principal.organisationId,
        workspace_id: null,
        user_id: null,
        type: 'organisation',
        sub_type: 'service',
        name: `deployment ${slug}`,
        description: 'Deployment key of a self-hosted gateway',
        scopes: [SYNC_SCOPE],
        key_hash: hashApiKeySecret(secret),
        masked_key: maskApiKeySecret(secret),
        expires_at: null,
        rotation_period: null,
        rotation_period_days: null,
        next_rotation_at: null,
        created_by: actorOf(principal),
      },
      now,
    );
    return tx.deployments.create(
      {
        organisation_id: principal.organisationId,
        name: input.name,
        slug,
        description: input.description ?? null,
        tags: input.tags ?? {},
        source_type: input.source_type ?? null,
        gateway_base_url: input.gateway_base_url ?? null,
        mcp_gateway_base_url: input.mcp_gateway_base_url ?? null,
        api_key_id: key.id,
      },
      now,
    );
  });
  return { status: 201, body: { ...(await present(call, record)), deployment_key: secret } };
};

export const listDeployments: Handler = async (c, call) => {
  const page = await call.services.store.deployments.list(principalOf(call).organisationId, query<'listDeployments'>(c));
  return { body: { ...page, data: await Promise.all(page.data.map((record) => present(call, record))) } };
};

export const getDeployment: Handler = async (c, call) => ({ body: await present(call, await find(call, pathId(c))) });

export const updateDeployment: Handler = async (c, call) => {
  const principal = principalOf(call);
  const record = await find(call, pathId(c));
  const input = body<'updateDeployment'>(c) as DeploymentInput;
  const { store } = call.services;
  if (input.slug !== undefined && input.slug !== record.slug && (await store.deployments.slugTaken(principal.organisationId, input.slug))) {
    throw new ConflictError(`A deployment with slug ${input.slug} exists`, 'slug_taken', 'slug');
  }
  const changes: Partial<DeploymentRecord> = {};
  for (const field of ['name', 'slug', 'description', 'tags', 'source_type', 'gateway_base_url', 'mcp_gateway_base_url'] as const) {
    if (input[field] !== undefined) (changes as Record<string, unknown>)[field] = input[field];
  }
  await store.deployments.update(principal.organisationId, record.id, changes, isoNow(call));
  return { body: await present(call, (await store.deployments.find(principal.organisationId, record.id))!) };
};

export const deleteDeployment: Handler = async (c, call) => {
  const principal = principalOf(call);
  const record = await find(call, pathId(c));
  const now = isoNow(call);
  // The deployment key is revoked with it, as deleted keys are, and stops working at once.
  await call.services.store.transaction(async (tx) => {
    await tx.deployments.delete(principal.organisationId, record.id);
    await tx.apiKeys.update(principal.organisationId, record.api_key_id, { status: 'revoked', previous_key_hash: null }, now);
  });
  await call.services.bus.publish(API_KEYS_TOPIC, record.api_key_id);
  return { body: { id: record.id, object: 'deployment', deleted: true } };
};

export const deploymentHeartbeat: Handler = async (c, call) => {
  const principal = principalOf(call);
  const deployment = await callingDeployment(call, 'heartbeat');
  const input = body<'deploymentHeartbeat'>(c) as { version: string; gateway_base_url?: string; mcp_gateway_base_url?: string };
  const changes: Partial<DeploymentRecord> = { version: input.version.replace(/^v/, ''), last_heartbeat_at: isoNow(call) };
  if (input.gateway_base_url) changes.gateway_base_url = input.gateway_base_url;
  if (input.mcp_gateway_base_url) changes.mcp_gateway_base_url = input.mcp_gateway_base_url;
  await call.services.store.deployments.update(principal.organisationId, deployment.id, changes, changes.last_heartbeat_at!);
  return {
    body: {
      deployment_id: deployment.id,
      status: 'active',
      unsupported_policies: await unsupportedPolicies(call.services.store, principal.organisationId, changes.version!),
      heartbeat_interval_seconds: HEARTBEAT_INTERVAL_SECONDS,
    },
  };
};
