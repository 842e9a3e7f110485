import { maskSecret, type SecretBox } from './secret-box.js';

/** Field names whose string values are credentials, wherever they appear in a document. */
export const SECRET_FIELD_NAMES: ReadonlySet<string> = new Set([
  'key',
  'api_key',
  'oauth_client_secret',
  'aws_secret_access_key',
  'aws_session_token',
]);

/** Secret values of one document keyed by their JSON pointer (`/targets/0/api_key`). */
export type SecretsByPath = Record<string, string>;

export interface SplitDocument<T> {
  /** The document with every secret value replaced by its mask: safe to store in clear and to answer with. */
  masked: T;
  secrets: SecretsByPath;
}

const pointer = (parent: string, key: string | number) => `${parent}/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`;

/** Which string fields are secrets: by default the SECRET_FIELD_NAMES, wherever they appear. */
export type SecretField = (key: string, path: string) => boolean;

const namedSecret: SecretField = (key) => SECRET_FIELD_NAMES.has(key);

/**
 * Takes the secrets out of a document. A value equal to the mask of the previous secret at the
 * same path means "unchanged" (a client echoing back what it was shown), so the old secret is kept.
 */
export function splitSecrets<T>(document: T, previous: SecretsByPath = {}, isSecret: SecretField = namedSecret): SplitDocument<T> {
  const secrets: SecretsByPath = {};
  const walk = (value: unknown, path: string, key: string | undefined): unknown => {
    if (typeof value === 'string' && key !== undefined && isSecret(key, path)) {
      const old = previous[path];
      const secret = old !== undefined && value === maskSecret(old) ? old : value;
      secrets[path] = secret;
      return maskSecret(secret);
    }
    if (Array.isArray(value)) return value.map((item, index) => walk(item, pointer(path, index), undefined));
    if (value && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, pointer(path, k), k)]));
    }
    return value;
  };
  return { masked: walk(document, '', undefined) as T, secrets };
}

/** Puts the secrets back into a masked document (for the gateway, never for a response). */
export function restoreSecrets<T>(masked: T, secrets: SecretsByPath): T {
  const copy = structuredClone(masked) as unknown;
  for (const [path, secret] of Object.entries(secrets)) {
    const keys = path.split('/').slice(1).map((k) => k.replace(/~1/g, '/').replace(/~0/g, '~'));
    let node = copy as Record<string, unknown>;
    for (const key of keys.slice(0, -1)) node = node?.[key] as Record<string, unknown>;
    if (node && typeof node === 'object') node[keys[keys.length - 1]!] = secret;
  }
  return copy as T;
}

export function sealSecrets(box: SecretBox, secrets: SecretsByPath): string | null {
  return Object.keys(secrets).length ? box.seal(JSON.stringify(secrets)) : null;
}

export function openSecrets(box: SecretBox, sealed: string | null): SecretsByPath {
  return sealed ? (JSON.parse(box.open(sealed)) as SecretsByPath) : {};
}

/** Stored credentials (integrations, providers): a key and cloud/auth fields, split as `{key, configurations}`. */
export interface CredentialDocument {
  key?: string;
  configurations: Record<string, unknown>;
}

export function openCredentials(
  box: SecretBox,
  stored: { masked_key: string | null; configurations: Record<string, unknown>; secrets: string | null },
): CredentialDocument {
  const masked: CredentialDocument = { configurations: stored.configurations };
  if (stored.masked_key !== null) masked.key = stored.masked_key;
  return restoreSecrets(masked, openSecrets(box, stored.secrets));
}
