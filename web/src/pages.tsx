/** The console's pages, each with the scope it needs: a page the caller cannot use is not offered. */
import type { ComponentType } from 'react';
import { AnalyticsPage } from './pages/analytics';
import { ConfigsPage } from './pages/configs';
import { GuardrailsPage } from './pages/guardrails';
import { KeysPage } from './pages/keys';
import { LogsPage } from './pages/logs';
import { PlaygroundPage } from './pages/playground';
import { PoliciesPage } from './pages/policies';
import { PromptsPage } from './pages/prompts';
import { ProvidersPage } from './pages/providers';
import { WorkspacesPage } from './pages/workspaces';
import { UsersPage } from './pages/users';
import { IdentityPage } from './pages/identity';
import { AssistantsPage } from './pages/house/assistants';
import { AuditPage } from './pages/house/audit';
import { FilesPage } from './pages/house/files';
import { McpPage } from './pages/house/mcp';
import { ModelsPage } from './pages/house/models';
import { OrganisationPage } from './pages/house/organisation';
import { AgentsPage } from './pages/house/agents';
import { DeploymentsPage } from './pages/house/deployments';
import { SecretReferencesPage } from './pages/house/secret-references';

export interface PageDef {
  path: string;
  title: string;
  scope: string;
  component: ComponentType<{ rest: string }>;
}

export const PAGES: PageDef[] = [
  { path: '/logs', title: 'Logs', scope: 'logs.list', component: LogsPage },
  { path: '/analytics', title: 'Analytics', scope: 'analytics.view', component: AnalyticsPage },
  { path: '/playground', title: 'Playground', scope: 'completions.write', component: PlaygroundPage },
  { path: '/keys', title: 'API keys', scope: 'api_keys.list', component: KeysPage },
  { path: '/providers', title: 'Providers', scope: 'virtual_keys.list', component: ProvidersPage },
  { path: '/configs', title: 'Configs', scope: 'configs.list', component: ConfigsPage },
  { path: '/guardrails', title: 'Guardrails', scope: 'guardrails.list', component: GuardrailsPage },
  { path: '/policies', title: 'Policies', scope: 'policies.list', component: PoliciesPage },
  { path: '/workspaces', title: 'Workspaces', scope: 'workspaces.list', component: WorkspacesPage },
  { path: '/users', title: 'Users', scope: 'users.list', component: UsersPage },
  { path: '/prompts', title: 'Prompts', scope: 'prompts.list', component: PromptsPage },
  { path: '/models', title: 'Models', scope: 'completions.write', component: ModelsPage },
  { path: '/mcp', title: 'MCP', scope: 'mcp_servers.list', component: McpPage },
  { path: '/agents', title: 'Agents', scope: 'agent_integrations.list', component: AgentsPage },
  { path: '/assistants', title: 'Assistants', scope: 'assistants.read', component: AssistantsPage },
  { path: '/files', title: 'Files and batches', scope: 'completions.write', component: FilesPage },
  { path: '/deployments', title: 'Deployments', scope: 'deployments.list', component: DeploymentsPage },
  { path: '/secret-references', title: 'Secret references', scope: 'secret_references.list', component: SecretReferencesPage },
  { path: '/audit', title: 'Audit log', scope: 'audit_logs.list', component: AuditPage },
  { path: '/organisation', title: 'Organisation', scope: 'organisation_settings.read', component: OrganisationPage },
  { path: '/identity', title: 'SSO and SCIM', scope: 'organisation_settings.read', component: IdentityPage },
];
