/** API shapes, from the types `make generate` writes from spec/openapi.yaml: never written by hand. */
import type { components, operations } from '../../../generated/types';

type Schemas = components['schemas'];
export type ApiKey = Schemas['ApiKey'];
export type ApiKeyWithSecret = Schemas['ApiKeyWithSecret'];
export type AuthKey = Schemas['AuthKey'];
export type AuthSelf = Schemas['AuthSelf'];
export type Scope = Schemas['Scope'];
export type LogSummary = Schemas['LogSummary'];
export type Log = Schemas['Log'];
export type LogExport = Schemas['LogExport'];
export type LogField = Schemas['LogField'];
export type CreateLogExport = Schemas['CreateLogExport'];
export type AnalyticsTotals = Schemas['AnalyticsTotals'];
export type AnalyticsSummary = Schemas['AnalyticsSummary'];
export type AnalyticsGroups = Schemas['AnalyticsGroups'];
export type AnalyticsTimeSeries = Schemas['AnalyticsTimeSeries'];
export type ConfigRecord = Schemas['ConfigRecord'];
export type ConfigVersion = Schemas['ConfigVersion'];
export type CreateConfig = Schemas['CreateConfig'];
export type Provider = Schemas['Provider'];
export type Integration = Schemas['Integration'];
export type Guardrail = Schemas['Guardrail'];
export type UsageLimitsPolicy = Schemas['UsageLimitsPolicy'];
export type UsageLimitsEntity = Schemas['UsageLimitsEntity'];
export type RateLimitsPolicy = Schemas['RateLimitsPolicy'];
export type Workspace = Schemas['Workspace'];
export type WorkspaceMember = Schemas['WorkspaceMember'];
export type WorkspaceRole = Schemas['WorkspaceRole'];
export type User = Schemas['User'];
export type Prompt = Schemas['Prompt'];
export type PromptSummary = Schemas['PromptSummary'];
export type RenderPromptResponse = Schemas['RenderPromptResponse'];
export type PromptVersion = Schemas['PromptVersion'];
export type Label = Schemas['Label'];
export type ChatCompletionChunk = Schemas['ChatCompletionChunk'];
export type ChatCompletion = Schemas['ChatCompletion'];
export type ChatCompletionRequest = Schemas['ChatCompletionRequest'];
export type ChatMessage = Schemas['ChatMessage'];
export type ToolCall = Schemas['ToolCall'];
export type ErrorBody = Schemas['Error'];

/** Every list answers with this envelope (ListEnvelope), with its own item type. */
export interface Page<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

/** The query GET /v1/logs takes. */
export type LogQuery = NonNullable<operations['listLogs']['parameters']['query']>;
/** The query the analytics endpoints take. */
export type AnalyticsQuery = NonNullable<operations['getAnalyticsTimeSeries']['parameters']['query']>;
export type AnalyticsGroupBy = operations['getAnalyticsGroups']['parameters']['path']['group_by'];
export type CacheStatus = NonNullable<LogQuery['cache_status']>;
export type AuditLogEntry = Schemas['AuditLogEntry'];
export type McpIntegration = Schemas['McpIntegration'];
export type McpServer = Schemas['McpServer'];
export type McpCapability = Schemas['McpCapability'];
export type McpServerTest = Schemas['McpServerTest'];
export type AgentIntegration = Schemas['AgentIntegration'];
export type Deployment = Schemas['Deployment'];
export type OpenAIFile = Schemas['OpenAIFile'];
export type Batch = Schemas['Batch'];
export type Assistant = Schemas['Assistant'];
export type Thread = Schemas['Thread'];
export type Run = Schemas['Run'];
export type RunStep = Schemas['RunStep'];
export type ThreadMessage = Schemas['Message'];
export type Model = Schemas['Model'];
export type SecretReference = Schemas['SecretReference'];
export type OrganisationSettings = Schemas['OrganisationSettings'];
export type OrganisationRole = Schemas['OrganisationRole'];
export type Invite = Schemas['Invite'];
export type InviteWithToken = Schemas['InviteWithToken'];
export type SsoSettings = Schemas['SsoSettings'];
export type SsoStatus = Schemas['SsoStatus'];
export type ScimToken = Schemas['ScimToken'];
export type ScimTokenWithSecret = Schemas['ScimTokenWithSecret'];
export type ScimMapping = Schemas['ScimMapping'];
export type ScimMappingList = Schemas['ScimMappingList'];
export type ScimGroupList = Schemas['ScimGroupList'];
