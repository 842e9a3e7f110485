import { ForbiddenError } from '../errors.js';
import { AddressRanges } from './ip-ranges.js';

/** Workspace (or organisation) `security_settings` as stored: a section at a time. */
export interface SecuritySections {
  api_keys?: { max_ttl_days?: number; require_expiry?: boolean } | null;
  logging?: { store_request_bodies?: boolean } | null;
  network?: { allowed_ip_ranges?: string[] } | null;
  [section: string]: unknown;
}

/** The settings that hold for one workspace, ready for checks on the request path. */
export interface EffectiveSecurity {
  maxTtlDays: number | null;
  requireExpiry: boolean;
  storeRequestBodies: boolean;
  /** Null when any address may call. */
  allowedRanges: AddressRanges | null;
  /** Where each value came from, for error messages: the workspace's own section or the organisation's. */
  source: { api_keys: 'workspace' | 'organisation'; network: 'workspace' | 'organisation' };
}

/** A workspace's section wins when it set one; otherwise the organisation's applies (null: the organisation has none either). */
export function effectiveSecurity(organisation: SecuritySections, workspace: SecuritySections | null): EffectiveSecurity {
  const pick = (section: 'api_keys' | 'logging' | 'network') => {
    const own = workspace?.[section];
    return own ? { value: own, from: 'workspace' as const } : { value: organisation[section] ?? null, from: 'organisation' as const };
  };
  const apiKeys = pick('api_keys');
  const logging = pick('logging');
  const network = pick('network');
  const keys = apiKeys.value as SecuritySections['api_keys'];
  const ranges = (network.value as SecuritySections['network'])?.allowed_ip_ranges;
  return {
    maxTtlDays: keys?.max_ttl_days ?? null,
    requireExpiry: keys?.require_expiry === true,
    storeRequestBodies: (logging.value as SecuritySections['logging'])?.store_request_bodies !== false,
    allowedRanges: ranges && ranges.length > 0 ? new AddressRanges(ranges) : null,
    source: { api_keys: apiKeys.from, network: network.from },
  };
}

export const NO_SECURITY_SETTINGS: EffectiveSecurity = effectiveSecurity({}, null);

/** Refuses a caller outside `network.allowed_ip_ranges` (403), naming the setting. */
export function assertAddressAllowed(security: EffectiveSecurity, address: string): void {
  if (!security.allowedRanges || security.allowedRanges.has(address)) return;
  const owner = security.source.network === 'workspace' ? "the workspace's" : "the organisation's";
  throw new ForbiddenError(`Requests from ${address || 'an unknown address'} are refused by ${owner} security_settings.network.allowed_ip_ranges`, 'ip_address_not_allowed');
}
