import { actorOf } from '../../core/auth/principal.js';
import { randomBytes } from 'node:crypto';
import { assertValidChecks } from '../../gateway/guardrails/check-parameters.js';
import { sealCheckSecrets } from '../../gateway/guardrails/check-secrets.js';
import { assertSafeCheckUrls } from '../../gateway/guardrails/check-urls.js';
import { DEFAULT_GUARDRAIL_TIMEOUT_MS, type GuardrailActions, type GuardrailCheckEntry } from '../../gateway/guardrails/definition.js';
import { definitionOf, GUARDRAILS_TOPIC } from '../../gateway/guardrails/saved-guardrails.js';
import { invokeGuardrail as runGuardrailOnDemand, type GuardrailInput as InvocationInput } from '../../gateway/guardrails/invocation.js';
import { principalOf, type Call } from '../../core/call.js';
import { ConflictError, ForbiddenError, NotFoundError } from '../../core/errors.js';
import type { GuardrailChanges, GuardrailRecord } from '../../store/repositories/guardrails.js';
import { body, pathId, query, type Handler } from '../types.js';
import { listWorkspaceFilter, slugFromName, targetWorkspaceId } from '../workspace-target.js';
import { isoNow } from '../workspace-access.js';
import { assertNotInUse } from './guardrail-rules.js';

interface GuardrailInput {
  name?: string;
  slug?: string;
  workspace_id?: string;
  checks?: GuardrailCheckEntry[];
  actions?: GuardrailActions;
  failOnError?: boolean;
  timeout_ms?: number;
}

function presentGuardrail(record: GuardrailRecord) {
  return {
    id: record.id,
    object: 'guardrail' as const,
    name: record.name,
    slug: record.slug,
    organisation_id: record.organisation_id,
    workspace_id: record.workspace_id,
    checks: record.checks,
    actions: record.actions,
    failOnError: record.fail_on_error,
    timeout_ms: record.timeout_ms ?? DEFAULT_GUARDRAIL_TIMEOUT_MS,
    created_by: record.created_by,
    created_at: record.created_at,
    updated_at: record.updated_at,
  };
}

/** A guardrail the caller may see: its organisation's; a workspace key sees its workspace's and the organisation-wide ones. */
async function visibleGuardrail(call: Call, idOrSlug: string): Promise<GuardrailRecord> {
  const principal = principalOf(call);
  const record = await call.services.store.guardrails.find(principal.organisationId, idOrSlug);
  const visible = record && (principal.workspaceId === null || record.workspace_id === null || record.workspace_id === principal.workspaceId);
  if (!visible) throw new NotFoundError('Guardrail', idOrSlug);
  return record;
}

/** Organisation-wide guardrails apply to every workspace: only an admin key changes them. */
async function writableGuardrail(call: Call, idOrSlug: string): Promise<GuardrailRecord> {
  const record = await visibleGuardrail(call, idOrSlug);
  if (record.workspace_id === null && principalOf(call).workspaceId !== null) {
    throw new ForbiddenError(`Guardrail ${record.slug} belongs to the whole organisation; only an admin key may change it`, 'organisation_guardrail');
  }
  return record;
}

const publish = (call: Call, id: string) => call.services.bus.publish(GUARDRAILS_TOPIC, id);

/** Validated, URL-vetted checks with their secrets (endpoint headers) masked and sealed. */
async function validChecks(call: Call, checks: GuardrailCheckEntry[], previousSecrets: string | null = null) {
  const valid = assertValidChecks(checks, 'checks');
  await assertSafeCheckUrls(valid, 'checks', call.services.outbound);
  return sealCheckSecrets(call.services.secrets, valid, previousSecrets);
}

export const createGuardrail: Handler = async (c, call) => {
  const principal = principalOf(call);
  const input = body<'createGuardrail'>(c) as GuardrailInput & { name: string; checks: GuardrailCheckEntry[] };
  const { store } = call.services;
  const workspaceId = input.workspace_id === undefined ? principal.workspaceId : await targetWorkspaceId(call, principal, input.workspace_id);
  const { checks, secrets } = await validChecks(call, input.checks);
  let slug = input.slug ?? slugFromName(input.name);
  if (await store.guardrails.slugTaken(principal.organisationId, slug)) {
    if (input.slug) throw new ConflictError(`A guardrail with slug ${slug} exists`, 'slug_taken', 'slug');
    slug = `${slug}-${randomBytes(3).toString('hex')}`;
  }
  const record = await store.guardrails.create(
    {
      organisation_id: principal.organisationId,
      workspace_id: workspaceId,
      name: input.name,
      slug,
      checks,
      secrets,
      actions: input.actions ?? {},
      fail_on_error: input.failOnError ?? false,
      timeout_ms: input.timeout_ms ?? null,
      created_by: actorOf(principal),
    },
    isoNow(call),
  );
  await publish(call, record.id);
  return { status: 201, body: presentGuardrail(record) };
};

export const listGuardrails: Handler = async (c, call) => {
  const principal = principalOf(call);
  const q = query<'listGuardrails'>(c);
  const workspaceId = await listWorkspaceFilter(call, principal, q.workspace_id);
  const page = await call.services.store.guardrails.list(principal.organisationId, { workspace_id: workspaceId }, q);
  return { body: { ...page, data: page.data.map(presentGuardrail) } };
};

export const getGuardrail: Handler = async (c, call) => ({ body: presentGuardrail(await visibleGuardrail(call, pathId(c))) });

export const updateGuardrail: Handler = async (c, call) => {
  const record = await writableGuardrail(call, pathId(c));
  const input = body<'updateGuardrail'>(c) as GuardrailInput;
  const changes: GuardrailChanges = {};
  if (input.name !== undefined) changes.name = input.name;
  if (input.checks !== undefined) {
    const sealed = await validChecks(call, input.checks, record.secrets);
    changes.checks = sealed.checks;
    changes.secrets = sealed.secrets;
  }
  if (input.actions !== undefined) changes.actions = input.actions;
  if (input.failOnError !== undefined) changes.fail_on_error = input.failOnError;
  if (input.timeout_ms !== undefined) changes.timeout_ms = input.timeout_ms;
  const { store } = call.services;
  await store.guardrails.update(record.id, changes, isoNow(call));
  await publish(call, record.id);
  return { body: presentGuardrail((await store.guardrails.find(record.organisation_id, record.id))!) };
};

export const deleteGuardrail: Handler = async (c, call) => {
  const record = await writableGuardrail(call, pathId(c));
  await assertNotInUse(call, record);
  await call.services.store.guardrails.delete(record.id);
  await publish(call, record.id);
  return { body: { id: record.id, object: 'guardrail', deleted: true } };
};

export * from './organisation-defaults.js';
export * from './workspace-exclusions.js';

/** Runs a saved guardrail the caller may see on the given input; another workspace's answers 404. */
export const invokeGuardrail: Handler = async (c, call) => {
  const principal = principalOf(call);
  const record = await visibleGuardrail(call, pathId(c));
  const guardrail = definitionOf(record, call.services.secrets);
  const input = body<'invokeGuardrail'>(c) as InvocationInput;
  return { body: await runGuardrailOnDemand(call, principal, guardrail, input, record.workspace_id ?? principal.gatewayWorkspaceId) };
};

/** Runs checks given in the body, validated and URL-vetted as a saved guardrail's are. */
export const invokeInlineGuardrail: Handler = async (c, call) => {
  const principal = principalOf(call);
  const input = body<'invokeInlineGuardrail'>(c) as InvocationInput & { name?: string; checks: GuardrailCheckEntry[]; actions?: GuardrailActions; failOnError?: boolean; timeout_ms?: number };
  const checks = assertValidChecks(input.checks, 'checks');
  await assertSafeCheckUrls(checks, 'checks', call.services.outbound);
  const guardrail = {
    id: null,
    slug: null,
    name: input.name ?? 'inline',
    checks,
    actions: input.actions ?? {},
    failOnError: input.failOnError ?? false,
    timeoutMs: input.timeout_ms ?? DEFAULT_GUARDRAIL_TIMEOUT_MS,
  };
  const given: InvocationInput = { input: input.input, phase: input.phase, model: input.model, metadata: input.metadata };
  return { body: await runGuardrailOnDemand(call, principal, guardrail, given, principal.gatewayWorkspaceId) };
};
