import type { components } from '../../generated/types.js';
import type { Store } from '../../store/store.js';
import type { Workspace } from '../../store/repositories/workspaces.js';
import { presentAttachedLimits } from '../policies/attached-limits.js';

type WorkspaceBody = components['schemas']['Workspace'];

/** A leading emoji icon (with its modifiers, joiners and variation selectors) and the space after it. */
const LEADING_ICON = /^(?:\p{Extended_Pictographic}|\p{Regional_Indicator})(?:\p{Extended_Pictographic}|\p{Regional_Indicator}|\p{Emoji_Modifier}|\u200D|\uFE0F|\u20E3)*\s*/u;

export function plainName(name: string): string {
  const stripped = name.replace(LEADING_ICON, '');
  return stripped.length ? stripped : name;
}

/** What the workspace keeps in its settings column. */
export interface WorkspaceSettings {
  security_settings?: Record<string, unknown>;
  user_api_key_auto_create?: boolean;
  user_api_key_ttl?: number | null;
}

/** The public shape: defaults.user_api_key_config is stored as a config id and answered as its slug. */
export async function presentWorkspace(store: Store, workspace: Workspace, nameFormat: 'plain' | 'raw' = 'raw'): Promise<WorkspaceBody> {
  const settings = workspace.settings as WorkspaceSettings;
  const configId = workspace.defaults.user_api_key_config;
  const config = typeof configId === 'string' ? await store.configs.find(workspace.organisation_id, configId) : undefined;
  return {
    id: workspace.id,
    object: 'workspace',
    name: nameFormat === 'plain' ? plainName(workspace.name) : workspace.name,
    slug: workspace.slug,
    description: workspace.description,
    is_default: workspace.is_default,
    defaults: { user_api_key_config: config?.slug ?? null },
    security_settings: (settings.security_settings ?? {}) as WorkspaceBody['security_settings'],
    user_api_key_auto_create: settings.user_api_key_auto_create ?? false,
    user_api_key_ttl: settings.user_api_key_ttl ?? null,
    ...presentAttachedLimits(workspace),
    created_at: workspace.created_at,
    updated_at: workspace.updated_at,
  };
}
