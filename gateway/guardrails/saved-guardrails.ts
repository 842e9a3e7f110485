/**
 * Saved guardrails and the organisation defaults as the gateway reads them: from memory, emptied
 * when the Admin API publishes GUARDRAILS_TOPIC (guardrail writes, defaults, exclusions), so the
 * hot path makes no database round trip per request.
 */
import type { InvalidationBus } from '../../core/invalidation.js';
import type { GuardrailRecord } from '../../store/repositories/guardrails.js';
import type { SecretBox } from '../../store/secret-box.js';
import type { Store } from '../../store/store.js';
import { InvalidatedCache } from '../invalidated-cache.js';
import { openCheckSecrets } from './check-secrets.js';
import { DEFAULT_GUARDRAIL_TIMEOUT_MS, type GuardrailDefinition, type GuardrailPhase } from './definition.js';

export const GUARDRAILS_TOPIC = 'guardrails';

const TTL_MS = 5 * 60_000;

/** A stored guardrail ready to run: its check secrets unsealed. */
export function definitionOf(record: GuardrailRecord, box: SecretBox): GuardrailDefinition {
  return {
    id: record.id,
    slug: record.slug,
    name: record.name,
    checks: openCheckSecrets(box, record.checks, record.secrets),
    actions: record.actions,
    failOnError: record.fail_on_error,
    timeoutMs: record.timeout_ms ?? DEFAULT_GUARDRAIL_TIMEOUT_MS,
  };
}

interface Defaults {
  guardrails: GuardrailDefinition[];
}

export class SavedGuardrails {
  private readonly guardrails = new InvalidatedCache<GuardrailDefinition>(10_000, TTL_MS);
  private readonly defaults = new InvalidatedCache<Defaults>(10_000, TTL_MS);

  constructor(
    private readonly store: Store,
    private readonly box: SecretBox,
    bus: InvalidationBus,
  ) {
    bus.subscribe(GUARDRAILS_TOPIC, () => {
      this.guardrails.clear();
      this.defaults.clear();
    });
  }

  /** A guardrail by id or slug that the workspace may use (its own or the organisation's). */
  guardrail(organisationId: string, workspaceId: string, idOrSlug: string): Promise<GuardrailDefinition | undefined> {
    return this.guardrails.get(`${organisationId}\n${workspaceId}\n${idOrSlug}`, async () => {
      const record = await this.store.guardrails.find(organisationId, idOrSlug);
      if (!record || (record.workspace_id !== null && record.workspace_id !== workspaceId)) return undefined;
      return definitionOf(record, this.box);
    });
  }

  /** The organisation's default guardrails of a phase for this workspace: none when the workspace is excluded. */
  async defaultsFor(organisationId: string, workspaceId: string, phase: GuardrailPhase): Promise<GuardrailDefinition[]> {
    const entry = await this.defaults.get(`${organisationId}\n${workspaceId}\n${phase}`, async () => {
      if (await this.store.guardrailExclusions.excludes(organisationId, phase, workspaceId)) return { guardrails: [] };
      const ids = await this.store.guardrailDefaults.list(organisationId, phase);
      const byId = new Map((await this.store.guardrails.byIds(ids)).map((record) => [record.id, definitionOf(record, this.box)]));
      return { guardrails: ids.flatMap((id) => byId.get(id) ?? []) };
    });
    return entry!.guardrails;
  }
}
