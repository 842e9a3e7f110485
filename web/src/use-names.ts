import { can } from './api/identity';
import type { ApiKey, Page, Workspace } from './api/types';
import { useIdentity } from './identity-context';
import { useAsync } from './use-async';

/**
 * Names for ids: API keys and workspaces, each listed once (one page of 100) for a whole page of
 * rows. A caller without the list scope gets an empty map, so ids stay.
 */
export function useNames() {
  const identity = useIdentity();
  return useAsync(async () => {
    const [keys, workspaces] = await Promise.all([
      can(identity, 'api_keys.list') ? identity.api.get<Page<ApiKey>>('/v1/api-keys', { limit: 100 }).then((p) => p.data) : [],
      can(identity, 'workspaces.list') ? identity.api.get<Page<Workspace>>('/v1/workspaces', { limit: 100 }).then((p) => p.data) : [],
    ]);
    return { api_key: new Map(keys.map((k) => [k.id, k.name])), workspace: new Map(workspaces.map((w) => [w.id, w.name])) } as Record<string, Map<string, string>>;
  }, [identity]);
}
