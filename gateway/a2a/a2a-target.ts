import type { Principal } from '../../core/auth/principal.js';
import { NotFoundError } from '../../core/errors.js';
import type { AgentIntegrationRecord } from '../../store/repositories/agent-integrations.js';
import type { AgentDirectory } from './agent-directory.js';

/** The agent a door request is for, and the workspace the call counts in. */
export interface A2aTarget {
  integration: AgentIntegrationRecord;
  workspaceId: string;
}

/**
 * The agent integration at `{base}/a2a/{slug}`, if the caller may invoke it: same organisation,
 * and the caller's workspace among the integration's `workspace_ids` (null: every workspace).
 * Organisation-wide callers count in the organisation's default workspace, as their model calls
 * do. An agent the caller may not use is not found, as another organisation's is.
 */
export async function resolveA2aTarget(agents: AgentDirectory, principal: Principal, slug: string): Promise<A2aTarget> {
  const integration = await agents.bySlug(principal.organisationId, slug);
  if (!integration) throw new NotFoundError('Agent', slug);
  const workspaceId = principal.workspaceId ?? principal.gatewayWorkspaceId;
  if (integration.workspace_ids !== null && !integration.workspace_ids.includes(workspaceId)) throw new NotFoundError('Agent', slug);
  return { integration, workspaceId };
}
