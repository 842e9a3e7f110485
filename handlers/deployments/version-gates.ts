/**
 * Which policies a self-hosted gateway's version can enforce. A deployment that reports an older
 * version shows each policy in force for its organisation that it would not enforce, instead of
 * ignoring it silently: `block_inline_config` needs 2.11.0, MCP tool-call rate limits need 2.18.0.
 */
import type { Store } from '../../store/store.js';

export interface UnsupportedPolicy {
  policy: string;
  required_version: string;
  message: string;
}

/** [major, minor, patch] of `v1.2.3` or `1.2.3`. */
function parse(version: string): [number, number, number] | undefined {
  const match = /^v?(\d+)\.(\d+)\.(\d+)$/.exec(version);
  return match ? [Number(match[1]), Number(match[2]), Number(match[3])] : undefined;
}

export function versionAtLeast(version: string, required: string): boolean {
  const have = parse(version);
  const need = parse(required)!;
  if (!have) return false;
  for (let i = 0; i < 3; i++) if (have[i] !== need[i]) return have[i]! > need[i]!;
  return true;
}

export const VERSION_GATES = {
  blockInlineConfig: '2.11.0',
  mcpToolRateLimits: '2.18.0',
} as const;

export async function unsupportedPolicies(store: Store, organisationId: string, version: string | null): Promise<UnsupportedPolicy[]> {
  if (version === null) return [];
  const found: UnsupportedPolicy[] = [];
  if (!versionAtLeast(version, VERSION_GATES.blockInlineConfig)) {
    const settings = (await store.organisations.get(organisationId))?.settings ?? {};
    if (settings.block_inline_config === true) {
      found.push({
        policy: 'block_inline_config',
        required_version: VERSION_GATES.blockInlineConfig,
        message: `block_inline_config is on, but gw ${version} does not enforce it (needs ${VERSION_GATES.blockInlineConfig} or later): inline providers and configs are accepted there`,
      });
    }
  }
  if (!versionAtLeast(version, VERSION_GATES.mcpToolRateLimits)) {
    const policies = await store.rateLimitsPolicies.active(organisationId);
    const mcp = policies.filter((policy) => (policy as { target?: string }).target === 'mcp_tools');
    for (const policy of mcp) {
      found.push({
        policy: `rate_limits:${(policy as { id: string }).id}`,
        required_version: VERSION_GATES.mcpToolRateLimits,
        message: `MCP tool-call rate limit ${(policy as { name?: string }).name ?? (policy as { id: string }).id} is not enforced by gw ${version} (needs ${VERSION_GATES.mcpToolRateLimits} or later)`,
      });
    }
  }
  return found;
}
