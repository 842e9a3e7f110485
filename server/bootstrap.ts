import { AdvisoryLock, underAdvisoryLock } from '../store/advisory-lock.js';
import { generateApiKeySecret, hashApiKeySecret, maskApiKeySecret } from '../core/auth/api-key-secret.js';
import { allScopes } from '../core/scopes.js';
import type { Services } from '../core/services.js';

export interface BootstrapResult {
  organisationId: string;
  workspaceId: string;
  /** Set only when this call created the admin key from a generated secret: print it once. */
  generatedAdminKey?: string;
}

/**
 * First start: one organisation, its default workspace, an owner user and an admin key
 * (GW_ADMIN_API_KEY, or a generated one returned to be printed once). Later starts only make
 * sure GW_ADMIN_API_KEY, when set, is a working admin key. Instances starting together take turns
 * under the startup lock, so one makes them and the others find them.
 */
export function bootstrap(services: Services): Promise<BootstrapResult> {
  return underAdvisoryLock(services.db, AdvisoryLock.startup, () => bootstrapOnce(services));
}

async function bootstrapOnce(services: Services): Promise<BootstrapResult> {
  const { store, config } = services;
  const now = new Date(services.now()).toISOString();
  const existing = await store.organisations.first();
  if (existing) {
    const workspace = await store.workspaces.getDefault(existing.id);
    if (config.adminApiKey && !(await store.apiKeys.findBySecretHash(hashApiKeySecret(config.adminApiKey)))) {
      await createAdminKey(services, existing.id, null, config.adminApiKey, now);
    }
    return { organisationId: existing.id, workspaceId: workspace!.id };
  }
  const secret = config.adminApiKey ?? generateApiKeySecret();
  try {
    const result = await store.transaction(async (tx) => {
      // Self-hosted first start: inline providers stay allowed so `make run` plus one curl with a provider
      // name and Authorization works (block_inline_config would default to on for a new organisation).
      const organisation = await tx.organisations.create(
        { name: 'Default organisation', slug: 'default', settings: { block_inline_config: false } },
        now,
      );
      const workspace = await tx.workspaces.create(
        { organisation_id: organisation.id, name: 'Default workspace', slug: 'default', is_default: true },
        now,
      );
      const owner = await tx.users.create({ organisation_id: organisation.id, email: 'owner@gw.local', role: 'owner' }, now);
      await createAdminKey({ ...services, store: tx }, organisation.id, owner.id, secret, now);
      return { organisationId: organisation.id, workspaceId: workspace.id };
    });
    return config.adminApiKey ? result : { ...result, generatedAdminKey: secret };
  } catch (error) {
    // Another instance bootstrapped first (unique slug): use what it made.
    const winner = await store.organisations.first();
    if (!winner) throw error;
    const workspace = await store.workspaces.getDefault(winner.id);
    return { organisationId: winner.id, workspaceId: workspace!.id };
  }
}

async function createAdminKey(services: Pick<Services, 'store'>, organisationId: string, userId: string | null, secret: string, now: string) {
  await services.store.apiKeys.create(
    {
      organisation_id: organisationId,
      workspace_id: null,
      user_id: userId,
      type: 'organisation',
      sub_type: 'service',
      name: 'Bootstrap admin key',
      description: 'Created at first start',
      scopes: [...allScopes()],
      key_hash: hashApiKeySecret(secret),
      masked_key: maskApiKeySecret(secret),
      expires_at: null,
      rotation_period: null,
      rotation_period_days: null,
      next_rotation_at: null,
      created_by: userId,
    },
    now,
  );
}
