export { listScimUsers, getScimUser, createScimUser, replaceScimUser, patchScimUser, deleteScimUser } from './users.js';
export { listScimGroups, getScimGroup, createScimGroup, replaceScimGroup, patchScimGroup, deleteScimGroup } from './groups.js';
export { getScimServiceProviderConfig, listScimResourceTypes, listScimSchemas } from './discovery.js';
export { createScimToken, listScimTokens, revokeScimToken } from './tokens.js';
export { listScimWorkspaceMappings, createScimWorkspaceMapping, deleteScimWorkspaceMapping, listScimGroupsAdmin } from './mappings.js';
