import { assertSafeCheckUrls } from '../../gateway/guardrails/check-urls.js';
import { inlineGuardrail, type InlineGuardrail } from '../../gateway/guardrails/inline-guardrail.js';
import type { ConfigNode } from '../../gateway/routing/config-node.js';
import type { Call } from '../../core/call.js';
import { ConflictError, ValidationError } from '../../core/errors.js';
import { workspacesDefaultingTo } from '../../store/config-references.js';
import { unknownGuardrailRefs } from '../../store/guardrail-refs.js';
import type { ConfigRecord } from '../../store/repositories/configs.js';

/** Every guardrail named by id or slug anywhere in the tree (inline guardrail objects are not references). */
export function guardrailRefs(node: ConfigNode): string[] {
  const own = [...(node.input_guardrails ?? []), ...(node.output_guardrails ?? [])].filter((ref): ref is string => typeof ref === 'string');
  return [...own, ...(node.targets ?? []).flatMap(guardrailRefs)];
}

/** Inline guardrail objects anywhere in the tree, with the param naming where each sits. */
function inlineGuardrails(node: ConfigNode, at: string): Array<{ raw: InlineGuardrail; param: string }> {
  const own = (['input_guardrails', 'output_guardrails'] as const).flatMap((key) =>
    (node[key] ?? []).flatMap((ref, index) => (typeof ref === 'string' ? [] : [{ raw: ref as InlineGuardrail, param: `${at}.${key}[${index}]` }])),
  );
  return [...own, ...(node.targets ?? []).flatMap((target, index) => inlineGuardrails(target, `${at}.targets[${index}]`))];
}

/** Every custom_host in the tree (targets at any depth, a semantic cache's embedding), with the param naming where it sits. */
function customHosts(node: ConfigNode, at: string): Array<{ url: string; param: string }> {
  const own = typeof node.custom_host === 'string' ? [{ url: node.custom_host, param: `${at}.custom_host` }] : [];
  const embedding = node.cache?.embedding?.custom_host;
  if (typeof embedding === 'string') own.push({ url: embedding, param: `${at}.cache.embedding.custom_host` });
  return [...own, ...(node.targets ?? []).flatMap((target, index) => customHosts(target, `${at}.targets[${index}]`))];
}

/**
 * A saved config's custom hosts are vetted with the outbound guard the call uses (same trusted
 * hosts, same resolver, same code), so a config whose call would be refused is refused at save.
 */
export async function assertSafeCustomHosts(call: Call, config: ConfigNode): Promise<void> {
  for (const { url, param } of customHosts(config, 'config')) {
    await call.services.outbound.vet(url, { param, code: 'custom_host_refused' });
  }
}

/**
 * A config may only name guardrails that exist and that its workspace may use (spec: rejected at
 * save), and its inline guardrails' checks must be valid like a saved guardrail's.
 */
export async function assertGuardrailsExist(call: Call, organisationId: string, workspaceId: string | null, config: ConfigNode): Promise<void> {
  for (const { raw, param } of inlineGuardrails(config, 'config')) {
    await assertSafeCheckUrls(inlineGuardrail(raw, param).checks, `${param}.checks`, call.services.outbound);
  }
  const unknown = await unknownGuardrailRefs(call.services.db, organisationId, workspaceId, guardrailRefs(config));
  if (unknown.length) {
    throw new ValidationError(`Unknown guardrail${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}`, 'config', 'unknown_guardrail');
  }
}

/** Deleting the config a workspace hands to new user keys would break them: the default must be cleared first. */
export async function assertNotAWorkspaceDefault(call: Call, config: ConfigRecord): Promise<void> {
  const workspaces = await workspacesDefaultingTo(call.services.db, config.organisation_id, config);
  if (workspaces.length) {
    throw new ConflictError(
      `Config ${config.slug} is the user_api_key_config default of workspace ${workspaces.join(', ')}; clear that default first`,
      'config_in_use',
    );
  }
}
