/**
 * The built-in guardrail checks, by id (`default.regexMatch`...). The runner and the Admin API
 * use only this registry and check-types.ts.
 *
 * Failure semantics, shared by every check:
 * - A check returns a verdict (true: passed) for everything about the subject itself. Nothing to
 *   look at is a verdict too, never an error: no JSON fails jsonSchema, no token fails jwt, no
 *   URLs passes validUrls.
 * - A check throws (an ApiError from core/errors.ts) only when it could not do its job: an
 *   endpoint that is refused by the address guard, unreachable, too slow (its `timeout`), answers
 *   non-2xx or nonsense. What that means for the request (fail open or closed) is the runner's
 *   decision, through the guardrail's failOnError; checks never swallow such errors.
 * - Parameters are checked when a guardrail is saved (parametersSchema, then assertParameters), so
 *   `run` trusts them.
 * - Results are shown to callers and logged: the PII check reports categories, never the values,
 *   and no check echoes a secret from its parameters or the request headers.
 */
import type { GuardrailCheck } from '../check-types.js';
import { allowedRequestTypesCheck } from './allowed-request-types.js';
import { containsCodeCheck } from './contains-code.js';
import { containsCheck } from './contains.js';
import { characterCountCheck, sentenceCountCheck, wordCountCheck } from './counts.js';
import { endsWithCheck } from './ends-with.js';
import { jsonKeysCheck } from './json-keys.js';
import { jsonSchemaCheck } from './json-schema.js';
import { jwtCheck } from './jwt.js';
import { allLowercaseCheck, allUppercaseCheck } from './letter-case.js';
import { logCheck } from './log.js';
import { modelWhitelistCheck } from './model-whitelist.js';
import { notNullCheck } from './not-null.js';
import { piiCheck } from './pii.js';
import { regexMatchCheck } from './regex-match.js';
import { requiredMetadataKeysCheck } from './required-metadata-keys.js';
import { validUrlsCheck } from './valid-urls.js';
import { webhookCheck } from './webhook.js';

const all: GuardrailCheck[] = [
  regexMatchCheck,
  containsCheck,
  wordCountCheck,
  sentenceCountCheck,
  characterCountCheck,
  jsonSchemaCheck,
  jsonKeysCheck,
  validUrlsCheck,
  containsCodeCheck,
  allUppercaseCheck,
  allLowercaseCheck,
  endsWithCheck,
  modelWhitelistCheck,
  allowedRequestTypesCheck,
  requiredMetadataKeysCheck,
  notNullCheck,
  piiCheck,
  jwtCheck,
  webhookCheck,
  logCheck,
];

export const guardrailChecks: ReadonlyMap<string, GuardrailCheck> = new Map(all.map((check) => [check.id, check]));

export function findGuardrailCheck(id: string): GuardrailCheck | undefined {
  return guardrailChecks.get(id);
}
