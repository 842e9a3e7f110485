import type { WorkspaceRole } from '../api/types';

/** A workspace's roles, least access first. */
const WORKSPACE_ROLES: WorkspaceRole[] = ['member', 'manager', 'admin'];

interface Props {
  value: WorkspaceRole;
  onChange: (role: WorkspaceRole) => void;
  disabled?: boolean;
  /** Set by Field (id, aria-describedby) or by a table cell (aria-label). */
  id?: string;
  'aria-describedby'?: string;
  'aria-label'?: string;
}

/** The select of a workspace role, wherever one is picked (members, invitations, SCIM mappings). */
export function WorkspaceRoleSelect({ value, onChange, ...rest }: Props) {
  return (
    <select {...rest} value={value} onChange={(e) => onChange(e.target.value as WorkspaceRole)}>
      {WORKSPACE_ROLES.map((role) => (
        <option key={role} value={role}>
          {role}
        </option>
      ))}
    </select>
  );
}
