/** The spec's schemas the console checks a body against before sending it (compiled at build time). */
export const VALIDATED_SCHEMAS = [
  'Config',
  'CreateWorkspaceServiceKey',
  'CreateOrganisationServiceKey',
  'UpdateApiKey',
  'CreateProvider',
  'UpdateProvider',
  'CreateIntegration',
  'UpdateIntegration',
  'CreateGuardrail',
  'UpdateGuardrail',
  'CreateUsageLimitsPolicy',
  'UpdateUsageLimitsPolicy',
  'CreateRateLimitsPolicy',
  'UpdateRateLimitsPolicy',
  'CreateWorkspace',
  'UpdateWorkspace',
  'AddWorkspaceMember',
  'CreatePrompt',
  'UpdatePrompt',
  'CreateLabel',
  'CreatePromptPartial',
  'UpdatePromptPartial',
  'CreateCollection',
  'UpdateCollection',
] as const;

export type ValidatedSchema = (typeof VALIDATED_SCHEMAS)[number];
