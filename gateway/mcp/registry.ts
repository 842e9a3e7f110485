import { ValidationError } from '../../core/errors.js';
import type { McpIntegrationRecord } from '../../store/repositories/mcp-integrations.js';
import { REGISTRY_CATALOG } from './registry-catalog.js';

export interface RegistryEntry {
  id: string;
  source: 'integration' | 'catalog';
  name: string;
  slug: string;
  description: string | null;
  url: string;
  transport: 'http' | 'sse';
  auth_type: 'none' | 'headers' | 'oauth_client_credentials';
  homepage: string | null;
}

const catalog: readonly RegistryEntry[] = REGISTRY_CATALOG.map((entry) => ({ ...entry, source: 'catalog' as const }));

export function registryCatalog(): readonly RegistryEntry[] {
  return catalog;
}

export function integrationEntry(record: McpIntegrationRecord): RegistryEntry {
  return { id: record.id, source: 'integration', name: record.name, slug: record.slug, description: record.description, url: record.url, transport: record.transport, auth_type: record.auth_type, homepage: null };
}

/** Cursor pagination over one ordered list: the cursor is the position after the page. */
export function registryPage(entries: RegistryEntry[], limit: number, cursor: string | undefined) {
  let offset = 0;
  if (cursor !== undefined) {
    const decoded = Number(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (!Number.isInteger(decoded) || decoded < 0 || decoded > entries.length) throw new ValidationError('cursor is not a cursor this list returned', 'cursor', 'invalid_cursor');
    offset = decoded;
  }
  const data = entries.slice(offset, offset + limit);
  const next = offset + data.length;
  const hasMore = next < entries.length;
  return { object: 'list' as const, data, has_more: hasMore, next_cursor: hasMore ? Buffer.from(String(next)).toString('base64url') : null };
}
