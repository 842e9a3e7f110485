import type { Knex } from 'knex';
import type { LogWriteOptions } from './log-batch-write.js';
import { ApiKeysRepository } from './repositories/api-keys.js';
import { AuditLogsRepository } from './repositories/audit-logs.js';
import { InvitationsRepository } from './repositories/invitations.js';
import { WorkspaceMembersRepository } from './repositories/workspace-members.js';
import { ConfigsRepository } from './repositories/configs.js';
import { GuardrailDefaultsRepository } from './repositories/guardrail-defaults.js';
import { GuardrailExclusionsRepository } from './repositories/guardrail-exclusions.js';
import { GuardrailsRepository } from './repositories/guardrails.js';
import { IntegrationsRepository } from './repositories/integrations.js';
import { LimitPoliciesRepository, type RateLimitsPolicyRecord, type UsageLimitsPolicyRecord } from './repositories/limit-policies.js';
import { ProvidersRepository } from './repositories/providers.js';
import { DeploymentsRepository } from './repositories/deployments.js';
import { AgentIntegrationsRepository } from './repositories/agent-integrations.js';
import { SecretReferencesRepository } from './repositories/secret-references.js';
import { OrganisationsRepository } from './repositories/organisations.js';
import { SemanticCacheEntriesRepository } from './repositories/semantic-cache-entries.js';
import { RequestLogsRepository } from './repositories/request-logs.js';
import { LogFeedbackRepository } from './repositories/log-feedback.js';
import { LogExportsRepository } from './repositories/log-exports.js';
import { UsersRepository } from './repositories/users.js';
import { WorkspacesRepository } from './repositories/workspaces.js';
import { OAuthRepository } from './repositories/oauth.js';
import { ScimRepository } from './repositories/scim.js';
import { ScimTokensRepository } from './repositories/scim-tokens.js';
import { SessionsRepository } from './repositories/sessions.js';
import { SsoRepository } from './repositories/sso.js';
import { PromptCollectionsRepository } from './repositories/prompt-collections.js';
import { PromptLabelsRepository } from './repositories/prompt-labels.js';
import { PromptsRepository } from './repositories/prompts.js';
import type { SharedPromptsLookup } from './shared-prompts.js';
import { McpIntegrationsRepository } from './repositories/mcp-integrations.js';
import { McpServersRepository } from './repositories/mcp-servers.js';
import { McpSessionsRepository } from './repositories/mcp-sessions.js';
import { McpGuardrailServersRepository } from './repositories/mcp-guardrail-servers.js';
import { AssistantObjectsRepository } from './repositories/assistant-objects.js';
import { AssistantRunsRepository } from './repositories/assistant-runs.js';
import { ResponsesRepository } from './repositories/responses.js';
import type { components } from '../generated/types.js';
import type { StoredRunState } from './repositories/assistant-runs.js';

/**
 * The repositories over one knex handle. `transaction` hands out a Store over the transaction,
 * so writes that span repositories commit or roll back together.
 */
export class Store {
  readonly organisations: OrganisationsRepository;
  readonly workspaces: WorkspacesRepository;
  readonly users: UsersRepository;
  readonly apiKeys: ApiKeysRepository;
  readonly workspaceMembers: WorkspaceMembersRepository;
  readonly invitations: InvitationsRepository;
  readonly auditLogs: AuditLogsRepository;
  readonly integrations: IntegrationsRepository;
  readonly providers: ProvidersRepository;
  readonly secretReferences: SecretReferencesRepository;
  readonly agentIntegrations: AgentIntegrationsRepository;
  readonly deployments: DeploymentsRepository;
  readonly configs: ConfigsRepository;
  readonly semanticCacheEntries: SemanticCacheEntriesRepository;
  readonly requestLogs: RequestLogsRepository;
  readonly logFeedback: LogFeedbackRepository;
  readonly logExports: LogExportsRepository;
  readonly guardrails: GuardrailsRepository;
  readonly guardrailDefaults: GuardrailDefaultsRepository;
  readonly guardrailExclusions: GuardrailExclusionsRepository;
  readonly usageLimitsPolicies: LimitPoliciesRepository<UsageLimitsPolicyRecord>;
  readonly rateLimitsPolicies: LimitPoliciesRepository<RateLimitsPolicyRecord>;
  readonly sessions: SessionsRepository;
  readonly sso: SsoRepository;
  readonly scimTokens: ScimTokensRepository;
  readonly scim: ScimRepository;
  readonly oauth: OAuthRepository;
  readonly prompts: PromptsRepository;
  readonly promptCollections: PromptCollectionsRepository;
  readonly promptLabels: PromptLabelsRepository;
  /** What blocks deleting a workspace: the prompts repository (tests may swap in a stand-in). */
  sharedPrompts: SharedPromptsLookup;
  readonly mcpIntegrations: McpIntegrationsRepository;
  readonly mcpServers: McpServersRepository;
  readonly mcpSessions: McpSessionsRepository;
  readonly mcpGuardrailServers: McpGuardrailServersRepository;
  readonly assistants: AssistantObjectsRepository<components['schemas']['Assistant']>;
  readonly assistantThreads: AssistantObjectsRepository<components['schemas']['Thread']>;
  readonly assistantMessages: AssistantObjectsRepository<components['schemas']['Message']>;
  readonly assistantRuns: AssistantRunsRepository<components['schemas']['Run'], StoredRunState>;
  readonly assistantRunSteps: AssistantObjectsRepository<components['schemas']['RunStep']>;
  readonly responses: ResponsesRepository<components['schemas']['Response'], components['schemas']['ResponseItem'], components['schemas']['ChatMessage']>;

  /** `logWrites.outbox` in data-plane mode: request logs written here are queued for shipping. */
  constructor(
    readonly db: Knex | Knex.Transaction,
    private readonly logWrites: LogWriteOptions = { outbox: false },
  ) {
    this.organisations = new OrganisationsRepository(db);
    this.workspaces = new WorkspacesRepository(db);
    this.users = new UsersRepository(db);
    this.apiKeys = new ApiKeysRepository(db);
    this.workspaceMembers = new WorkspaceMembersRepository(db);
    this.invitations = new InvitationsRepository(db);
    this.auditLogs = new AuditLogsRepository(db);
    this.integrations = new IntegrationsRepository(db);
    this.providers = new ProvidersRepository(db);
    this.secretReferences = new SecretReferencesRepository(db);
    this.agentIntegrations = new AgentIntegrationsRepository(db);
    this.deployments = new DeploymentsRepository(db);
    this.configs = new ConfigsRepository(db);
    this.prompts = new PromptsRepository(db);
    this.promptCollections = new PromptCollectionsRepository(db);
    this.promptLabels = new PromptLabelsRepository(db);
    this.sharedPrompts = this.prompts;
    this.semanticCacheEntries = new SemanticCacheEntriesRepository(db);
    this.requestLogs = new RequestLogsRepository(db, logWrites);
    this.logFeedback = new LogFeedbackRepository(db);
    this.logExports = new LogExportsRepository(db);
    this.guardrails = new GuardrailsRepository(db);
    this.guardrailDefaults = new GuardrailDefaultsRepository(db);
    this.guardrailExclusions = new GuardrailExclusionsRepository(db);
    this.usageLimitsPolicies = new LimitPoliciesRepository(db, 'usage_limits_policies');
    this.rateLimitsPolicies = new LimitPoliciesRepository(db, 'rate_limits_policies');
    this.sessions = new SessionsRepository(db);
    this.sso = new SsoRepository(db);
    this.scimTokens = new ScimTokensRepository(db);
    this.scim = new ScimRepository(db);
    this.oauth = new OAuthRepository(db);
    this.mcpIntegrations = new McpIntegrationsRepository(db);
    this.mcpServers = new McpServersRepository(db);
    this.mcpSessions = new McpSessionsRepository(db);
    this.mcpGuardrailServers = new McpGuardrailServersRepository(db);
    this.assistants = new AssistantObjectsRepository(db, 'assistants');
    this.assistantThreads = new AssistantObjectsRepository(db, 'assistant_threads');
    this.assistantMessages = new AssistantObjectsRepository(db, 'assistant_messages');
    this.assistantRuns = new AssistantRunsRepository(db);
    this.assistantRunSteps = new AssistantObjectsRepository(db, 'assistant_run_steps');
    this.responses = new ResponsesRepository(db);
  }

  transaction<T>(work: (store: Store) => Promise<T>): Promise<T> {
    return this.db.transaction((trx) => work(new Store(trx, this.logWrites)));
  }

  /** One cheap round trip; /ready uses it. */
  async ping(): Promise<void> {
    await this.db.raw('select 1');
  }
}
