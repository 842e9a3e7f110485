/**
 * The cloud header groups, read into the config field names saved providers and configs use
 * (spec/schemas/provider-fields.yaml), so one conversion (leaf-target.ts) serves every mode.
 */
import type { IncomingHttpHeaders } from 'node:http';

const HEADER_FIELDS: ReadonlyArray<readonly [string, string]> = [
  ['x-gw-cloud1-resource-name', 'resource_name'],
  ['x-gw-cloud1-deployment-id', 'deployment_id'],
  ['x-gw-cloud1-api-version', 'api_version'],
  ['x-gw-cloud1-model-name', 'azure_model_name'],
  ['x-gw-cloud2-project-id', 'vertex_project_id'],
  ['x-gw-cloud2-region', 'vertex_region'],
  ['x-cloud2-llm-request-type', 'vertex_request_type'],
  ['x-gw-cloud3-secret-access-key', 'aws_secret_access_key'],
  ['x-gw-cloud3-session-token', 'aws_session_token'],
  ['x-gw-cloud3-region', 'aws_region'],
];

export function cloudFieldsFromHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  let fields: Record<string, string> | undefined;
  for (const [name, field] of HEADER_FIELDS) {
    const value = headers[name];
    if (typeof value === 'string' && value !== '') (fields ??= {})[field] = value;
  }
  return fields ?? {};
}
