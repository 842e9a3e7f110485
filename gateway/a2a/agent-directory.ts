/**
 * Agent integrations as the A2A door reads them: from memory, emptied when any integration is
 * written (the `agent_integrations` topic, across instances with Redis), so a call makes no store
 * round trip for its agent.
 */
import type { InvalidationBus } from '../../core/invalidation.js';
import type { AgentIntegrationRecord } from '../../store/repositories/agent-integrations.js';
import type { Store } from '../../store/store.js';
import { InvalidatedCache } from '../invalidated-cache.js';

export const AGENT_INTEGRATIONS_TOPIC = 'agent_integrations';

/** A safety net only: invalidation is what makes changes visible at once. */
const TTL_MS = 5 * 60_000;

export class AgentDirectory {
  private readonly cache = new InvalidatedCache<AgentIntegrationRecord>(10_000, TTL_MS);

  constructor(
    private readonly store: Store,
    bus: InvalidationBus,
  ) {
    bus.subscribe(AGENT_INTEGRATIONS_TOPIC, () => this.cache.clear());
  }

  /** The organisation's integration with this slug (not id: the door's URL names slugs). */
  async bySlug(organisationId: string, slug: string): Promise<AgentIntegrationRecord | undefined> {
    return this.cache.get(`${organisationId}\n${slug}`, async () => {
      const found = await this.store.agentIntegrations.find(organisationId, slug);
      return found?.slug === slug ? found : undefined;
    });
  }
}
