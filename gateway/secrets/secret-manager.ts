/**
 * The contract every secret manager client implements: read one secret with the credentials a
 * secret reference carries. Clients do their own sign-in (and cache its tokens); the caller
 * caches the values and turns failures into the 502 that names the reference.
 */
import type { GuardedFetch } from '../outbound/guarded-fetch.js';
import { AnswerTooLargeError } from '../outbound/answer-cap.js';

/** A whole secret: Vault's data map, or the string AWS and Azure store (often JSON). */
export type SecretValue = string | Record<string, unknown>;

/** A secret reference with its auth secrets opened: never logged, never answered. */
export interface OpenReference {
  id: string;
  slug: string;
  manager_type: string;
  /** auth_config with secret values in clear. */
  auth: Record<string, unknown>;
  secret_path: string;
  /** Changes whenever the reference is edited: cached sign-ins for old settings are not reused. */
  version: string;
}

export interface SecretManagerClient {
  read(reference: OpenReference): Promise<SecretValue>;
}

/** What manager clients call out with. */
export interface ManagerOutbound {
  /** fetch through the outbound address guard (redirects included), unless the host is trusted. */
  fetch: GuardedFetch;
  trustedHosts: readonly string[];
  now: () => number;
  /** Per call to a manager or token endpoint. */
  timeoutMs: number;
}

/** A manager said no or could not be reached; the message names no secret. */
export class SecretManagerError extends Error {}

export const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/** Reads a JSON answer, turning a non-2xx status into a SecretManagerError naming `what`. */
export async function jsonAnswer(response: Response, what: string): Promise<Record<string, unknown>> {
  if (response.status < 200 || response.status >= 300) {
    await response.body?.cancel();
    throw new SecretManagerError(`${what} answered HTTP ${response.status}`);
  }
  try {
    const parsed = (await response.json()) as unknown;
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch (error) {
    if (error instanceof AnswerTooLargeError) throw new SecretManagerError(`${what}: ${error.message}`);
  }
  throw new SecretManagerError(`${what} did not answer a JSON object`);
}
