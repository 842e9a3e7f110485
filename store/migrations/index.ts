import type { Knex } from 'knex';
import * as foundation from './001_foundation.js';
import * as peopleAndAudit from './002_people_and_audit.js';
import * as providersConfigs from './003_providers_configs.js';
import * as requestLogs from './004_request_logs.js';
import * as semanticCache from './005_semantic_cache.js';
import * as limits from './006_limits.js';
import * as guardrails from './007_guardrails.js';
import * as autoCreatedKeys from './008_auto_created_keys.js';
import * as exportLeases from './009_export_leases.js';
import * as specialMetadata from './010_special_metadata.js';
import * as requestLogEndpoint from './011_request_log_endpoint.js';
import * as promptLibrary from './170_prompt_library.js';
import * as promptInLogs from './171_prompt_in_logs.js';
import * as assistants from './150_assistants.js';
import * as identityInLogs from './180_identity_in_logs.js';
import * as sessionsAndSso from './181_sessions_and_sso.js';
import * as scim from './182_scim.js';
import * as oauth from './183_oauth.js';
import * as secretReferences from './190_secret_references.js';
import * as agentIntegrations from './191_agent_integrations.js';
import * as jobs from './205_jobs.js';
import * as mcp from './160_mcp.js';
import * as files from './206_files.js';
import * as deployments from './192_deployments.js';
import * as batches from './207_batches.js';
import * as nativeBatches from './208_native_batches.js';
import * as costUnpriced from './220_cost_unpriced.js';
import * as analyticsRollups from './240_analytics_rollups.js';
import * as responses from './255_responses.js';
import * as allWorkspaceRollups from './280_all_workspace_rollups.js';
import * as finerRollupBuckets from './301_finer_rollup_buckets.js';
import * as agentAccess from './325_agent_access.js';
import * as agentOauth from './350_agent_oauth.js';
import * as keyAllowedModels from './351_key_allowed_models.js';
import * as agentClientTls from './390_agent_client_tls.js';
import * as metadataRollups from './300_metadata_rollups.js';
import * as analyticsCoveringIndex from './281_analytics_covering_index.js';
import * as weekAndQuarterRollups from './282_week_and_quarter_rollups.js';
import * as rollupUnpriced from './241_rollup_unpriced.js';
import * as deploymentSyncState from './265_deployment_sync_state.js';
import * as logOutbox from './266_log_outbox.js';
import * as vectorStores from './290_vector_stores.js';
import * as responsesExpiryIndex from './295_responses_expiry_index.js';
import * as mcpSessionClient from './320_mcp_session_client.js';
import * as mcpServerRelays from './330_mcp_server_relays.js';

/**
 * Every migration, in order. Listed here (not discovered on disk) so the same list runs from
 * TypeScript sources and from the compiled build. Append only; never edit a landed one.
 */
export const migrations: Record<string, Knex.Migration> = {
  '001_foundation': foundation,
  '002_people_and_audit': peopleAndAudit,
  '003_providers_configs': providersConfigs,
  '004_request_logs': requestLogs,
  '005_semantic_cache': semanticCache,
  '006_limits': limits,
  '007_guardrails': guardrails,
  '008_auto_created_keys': autoCreatedKeys,
  '009_export_leases': exportLeases,
  '010_special_metadata': specialMetadata,
  '011_request_log_endpoint': requestLogEndpoint,
  '160_mcp': mcp,
  '150_assistants': assistants,
  '180_identity_in_logs': identityInLogs,
  '181_sessions_and_sso': sessionsAndSso,
  '182_scim': scim,
  '183_oauth': oauth,
  '190_secret_references': secretReferences,
  '191_agent_integrations': agentIntegrations,
  '192_deployments': deployments,
  '205_jobs': jobs,
  '206_files': files,
  '207_batches': batches,
  '220_cost_unpriced': costUnpriced,
  '240_analytics_rollups': analyticsRollups,
  '241_rollup_unpriced': rollupUnpriced,
  '255_responses': responses,
  '265_deployment_sync_state': deploymentSyncState,
  '266_log_outbox': logOutbox,
  '290_vector_stores': vectorStores,
  '295_responses_expiry_index': responsesExpiryIndex,
  // Issue 17's range; after 240 because 171 adds rollup columns.
  '170_prompt_library': promptLibrary,
  '171_prompt_in_logs': promptInLogs,
  // Issue 24's range.
  '280_all_workspace_rollups': allWorkspaceRollups,
  '281_analytics_covering_index': analyticsCoveringIndex,
  '282_week_and_quarter_rollups': weekAndQuarterRollups,
  // Issue 20: batches handed to a provider's own batch API.
  '208_native_batches': nativeBatches,
  // Issue 24's second range.
  '300_metadata_rollups': metadataRollups,
  '301_finer_rollup_buckets': finerRollupBuckets,
  // Issue 35: who may invoke an agent through the A2A door, and which skills.
  '325_agent_access': agentAccess,
  '320_mcp_session_client': mcpSessionClient,
  // Agents behind OAuth client credentials.
  '350_agent_oauth': agentOauth,
  // The models an API key may call.
  '351_key_allowed_models': keyAllowedModels,
  // Issue 35: mTLS to agents (a client certificate, its key sealed).
  '390_agent_client_tls': agentClientTls,
  // Issue 34: per MCP server, which server-to-client features gw relays.
  '330_mcp_server_relays': mcpServerRelays,
};
