import * as apiKeys from './api-keys/index.js';
import * as auth from './auth/index.js';
import * as scim from './scim/index.js';
import * as oauth from './oauth/index.js';
import * as analytics from './analytics/index.js';
import * as feedback from './feedback/index.js';
import * as logExports from './logs/exports.js';
import * as logs from './logs/index.js';
import * as mcp from './mcp/index.js';
import * as auditLogs from './audit-logs.js';
import * as configs from './configs/index.js';
import * as gateway from './gateway.js';
import * as files from './files/index.js';
import * as batches from './batches/index.js';
import * as guardrails from './guardrails/index.js';
import * as integrations from './integrations/index.js';
import * as organisationSettings from './organisation-settings.js';
import * as policies from './policies/index.js';
import * as providers from './providers/index.js';
import * as system from './system.js';
import * as users from './users/index.js';
import * as workspaces from './workspaces/index.js';
import type { Handler } from './types.js';

import * as assistants from './assistants/index.js';
import * as secretReferences from './secret-references/index.js';
import * as agentIntegrations from './agent-integrations/index.js';
import * as deployments from './deployments/index.js';
import * as collections from './collections/index.js';
import * as labels from './labels/index.js';
import * as promptPartials from './prompt-partials/index.js';
import * as prompts from './prompts/index.js';
import * as responses from './responses/index.js';
import * as vectorStores from './vector-stores/index.js';
import * as messages from './messages/index.js';
import * as a2a from './a2a/index.js';
/** operationId -> handler, for every operation in the spec (checked at boot). */
export const handlers: Record<string, Handler> = {
  ...system,
  ...gateway,
  ...files,
  ...batches,
  ...apiKeys,
  ...logs,
  ...logExports,
  ...analytics,
  ...feedback,
  ...workspaces,
  ...users,
  ...organisationSettings,
  ...auditLogs,
  ...integrations,
  ...providers,
  ...configs,
  ...guardrails,
  ...policies,
  ...auth,
  ...scim,
  ...oauth,
  ...assistants,
  ...secretReferences,
  ...agentIntegrations,
  ...deployments,
  ...collections,
  ...labels,
  ...promptPartials,
  ...prompts,
  ...mcp,
  ...responses,
  ...vectorStores,
  ...messages,
  ...a2a,
};
