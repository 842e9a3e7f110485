/**
 * What a child target inherits from its parent (the same rule at every depth):
 *
 * - override_params: merged key by key; the child's value wins on a shared key.
 * - retry, cache, request_timeout, forward_headers, input_guardrails, output_guardrails,
 *   strict_openai_compliance: inherited whole when the child does not set them; a child that
 *   sets one replaces the parent's (no deep merge: a child `retry` is a complete policy).
 * - Provider credentials (provider, api_key, virtual_key, custom_host and the cloud fields):
 *   inherited as one group, and only when the child names no provider of its own (neither
 *   `provider` nor `virtual_key`). A child naming another provider therefore never receives the
 *   parent's key or host. Without its own provider, the child's own credential keys (a
 *   custom_host, say) override the inherited ones.
 * - strategy, targets, name and weight describe the node itself and are never inherited.
 */
import type { ConfigNode } from './config-node.js';

/** Exported so a test can hold the written rule (spec description, README) to these lists. */
export const STRUCTURE_KEYS: ReadonlySet<string> = new Set(['strategy', 'targets', 'name', 'weight']);
export const INHERITED_WHOLE = [
  'retry',
  'cache',
  'request_timeout',
  'forward_headers',
  'input_guardrails',
  'output_guardrails',
  'strict_openai_compliance',
] as const;
const ROUTING_KEYS = new Set<string>([...STRUCTURE_KEYS, 'override_params', ...INHERITED_WHOLE]);

/** The keys of a node that say which provider to call and as whom. */
function credentialGroup(node: ConfigNode): ConfigNode {
  // Keys rather than entries: this runs for every node of every request's tree, and entries
  // allocate a pair per key (BENCH_PROFILE=1 showed it among the chat path's larger self times).
  const group: Record<string, unknown> = {};
  const record = node as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const value = record[key];
    if (value !== undefined && !ROUTING_KEYS.has(key)) group[key] = value;
  }
  return group as ConfigNode;
}

function namesOwnProvider(node: ConfigNode): boolean {
  return node.provider !== undefined || node.virtual_key !== undefined;
}

/**
 * The settings a child runs with after inheriting from its (already resolved) parent.
 * The result has no strategy or targets; the child's own structure keys are read from the child.
 */
export function inherit(parent: ConfigNode, child: ConfigNode): ConfigNode {
  const resolved: ConfigNode = namesOwnProvider(child)
    ? credentialGroup(child)
    : { ...credentialGroup(parent), ...credentialGroup(child) };
  for (const key of INHERITED_WHOLE) {
    const value = child[key] !== undefined ? child[key] : parent[key];
    if (value !== undefined) (resolved as Record<string, unknown>)[key] = value;
  }
  if (parent.override_params !== undefined || child.override_params !== undefined) {
    resolved.override_params = { ...parent.override_params, ...child.override_params };
  }
  return resolved;
}

/** The root's own settings, as the starting parent of its children. */
export function rootSettings(root: ConfigNode): ConfigNode {
  return inherit({}, root);
}
