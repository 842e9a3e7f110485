import type { GroupBy, LimitCondition, RequestFacts } from '../../core/limit-policy-types.js';

/** True when every condition holds for the request (no conditions: every request). */
export function conditionsMatch(conditions: readonly LimitCondition[], facts: RequestFacts): boolean {
  return conditions.every((condition) => {
    const actual = facts[condition.key];
    // An empty excludes is how "no exclusion" arrives from clients that always send the field.
    if (condition.excludes && actual === condition.excludes) return false;
    if (condition.value === undefined) return true;
    if (condition.value === '*') return actual !== undefined && actual !== '';
    return actual === condition.value;
  });
}

/** The entity a request counts against: its values of the group_by keys, as a stable id. */
export function entityOf(groupBy: readonly GroupBy[], facts: RequestFacts): { id: string; group: Record<string, string> } {
  const group: Record<string, string> = {};
  for (const { key } of groupBy) group[key] = facts[key] ?? '';
  return { id: Buffer.from(JSON.stringify(groupBy.map(({ key }) => group[key]))).toString('base64url'), group };
}

/** The group_by values an entity id stands for (listing entities). */
export function groupOfEntity(groupBy: readonly GroupBy[], entityId: string): Record<string, string> | undefined {
  try {
    const values = JSON.parse(Buffer.from(entityId, 'base64url').toString('utf8')) as unknown;
    if (!Array.isArray(values) || values.length !== groupBy.length) return undefined;
    return Object.fromEntries(groupBy.map(({ key }, index) => [key, String(values[index])]));
  } catch {
    return undefined;
  }
}

/** Request facts from who is calling and the x-gw-metadata header. */
export function requestFacts(input: { apiKeyId: string; workspaceId: string; metadata: Record<string, unknown> | undefined }): RequestFacts {
  const facts: RequestFacts = { api_key: input.apiKeyId, workspace_id: input.workspaceId };
  for (const [name, value] of Object.entries(input.metadata ?? {})) {
    if (value !== null && value !== undefined) facts[`metadata.${name}`] = String(value);
  }
  return facts;
}
