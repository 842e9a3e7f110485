import { isDeepStrictEqual } from 'node:util';
import { ValidationError } from '../../core/errors.js';
import { AddressRanges, rangeProblem } from '../../core/security/ip-ranges.js';

type Sections = Record<string, unknown>;

/**
 * Applies a workspace's security_settings change section by section. A section may differ from
 * what the workspace has only when the organisation lists it in overridable_sections; null
 * clears a workspace override (back to the organisation's values), which is always allowed.
 */
export function applySecuritySettings(current: Sections, change: Sections, organisationSecurity: Sections): Sections {
  const overridable = new Set((organisationSecurity.overridable_sections as string[] | undefined) ?? []);
  assertValidRanges(change);
  const next: Sections = { ...current };
  for (const [section, value] of Object.entries(change)) {
    if (value === null) {
      delete next[section];
      continue;
    }
    if (isDeepStrictEqual(current[section], value)) continue;
    if (!overridable.has(section)) {
      throw new ValidationError(
        `The organisation does not allow workspaces to override the ${section} security settings`,
        `security_settings.${section}`,
        'security_section_not_overridable',
      );
    }
    next[section] = value;
  }
  return next;
}

/** `network.allowed_ip_ranges` must hold addresses or CIDR ranges (the schema says only "strings"). */
export function assertValidRanges(sections: Sections | undefined): void {
  const ranges = (sections?.network as { allowed_ip_ranges?: string[] } | null | undefined)?.allowed_ip_ranges ?? [];
  ranges.forEach((range, index) => {
    const problem = rangeProblem(range);
    if (problem) throw new ValidationError(problem, `security_settings.network.allowed_ip_ranges[${index}]`, 'invalid_ip_range');
  });
}

/**
 * Refuses allowed_ip_ranges that would shut out the caller making the change (who applies them
 * to themselves): the next request, the one to undo it included, would be refused.
 */
export function assertCallerStaysAllowed(sections: Sections | undefined, callerAddress: string): void {
  const ranges = (sections?.network as { allowed_ip_ranges?: string[] } | null | undefined)?.allowed_ip_ranges ?? [];
  if (ranges.length === 0 || new AddressRanges(ranges).has(callerAddress)) return;
  throw new ValidationError(
    `security_settings.network.allowed_ip_ranges leaves out ${callerAddress || 'the address this request came from'}: it would refuse your own next request`,
    'security_settings.network.allowed_ip_ranges',
    'ip_ranges_exclude_caller',
  );
}
