import type { Call } from '../../core/call.js';
import type { Handler } from '../types.js';
import { GROUP_SCHEMA, listResponse, SCIM_BASE_PATH, SCIM_CONTENT, USER_SCHEMA } from './scim-resources.js';

const base = (call: Call) => `${call.services.config.publicUrl}${SCIM_BASE_PATH}`;

/** What gw's SCIM service does (RFC 7643 section 5): PATCH and filter yes; bulk, sort, etag and password changes no. */
export const getScimServiceProviderConfig: Handler = async (_c, call) => ({
  headers: SCIM_CONTENT,
  body: {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'],
    documentationUri: `${call.services.config.publicUrl}/docs/identity.md`,
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: 1000 },
    changePassword: { supported: false },
    sort: { supported: false },
    etag: { supported: false },
    authenticationSchemes: [
      { type: 'oauthbearertoken', name: 'SCIM bearer token', description: 'A token an administrator creates at POST /v1/admin/scim/tokens', primary: true },
    ],
    meta: { resourceType: 'ServiceProviderConfig', location: `${base(call)}/ServiceProviderConfig` },
  },
});

export const listScimResourceTypes: Handler = async (_c, call) => {
  const types = [
    { id: 'User', name: 'User', endpoint: '/Users', schema: USER_SCHEMA },
    { id: 'Group', name: 'Group', endpoint: '/Groups', schema: GROUP_SCHEMA },
  ].map((type) => ({
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:ResourceType'],
    ...type,
    meta: { resourceType: 'ResourceType', location: `${base(call)}/ResourceTypes/${type.id}` },
  }));
  return { headers: SCIM_CONTENT, body: listResponse(types, types.length, 1) };
};

const attribute = (name: string, type: string, extra: Record<string, unknown> = {}) => ({
  name,
  type,
  multiValued: false,
  required: false,
  caseExact: false,
  mutability: 'readWrite',
  returned: 'default',
  uniqueness: 'none',
  ...extra,
});

/** The attributes gw stores of each resource; others a client sends are accepted and not kept. */
export const listScimSchemas: Handler = async (_c, call) => {
  const schemas = [
    {
      id: USER_SCHEMA,
      name: 'User',
      attributes: [
        attribute('userName', 'string', { required: true, uniqueness: 'server' }),
        attribute('externalId', 'string', { caseExact: true }),
        attribute('name', 'complex', { subAttributes: [attribute('givenName', 'string'), attribute('familyName', 'string')] }),
        attribute('emails', 'complex', { multiValued: true, subAttributes: [attribute('value', 'string'), attribute('type', 'string'), attribute('primary', 'boolean')] }),
        attribute('active', 'boolean'),
        attribute('groups', 'complex', { multiValued: true, mutability: 'readOnly' }),
      ],
    },
    {
      id: GROUP_SCHEMA,
      name: 'Group',
      attributes: [
        attribute('displayName', 'string', { required: true, uniqueness: 'server' }),
        attribute('externalId', 'string', { caseExact: true }),
        attribute('members', 'complex', { multiValued: true, subAttributes: [attribute('value', 'string'), attribute('display', 'string', { mutability: 'readOnly' })] }),
      ],
    },
  ].map((schema) => ({
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:Schema'],
    ...schema,
    meta: { resourceType: 'Schema', location: `${base(call)}/Schemas/${schema.id}` },
  }));
  return { headers: SCIM_CONTENT, body: listResponse(schemas, schemas.length, 1) };
};
