/**
 * The spec's Config schema (spec/schemas/configs.yaml), compiled once: the gateway checks inline
 * `x-gw-config` JSON with it, exactly as the Admin API checks a config at save.
 */
import type { ErrorObject, ValidateFunction } from 'ajv';
import { toValidationError } from '../core/validation-message.js';
import { assertRoutable } from './routing/config-checks.js';
import type { ConfigNode } from './routing/config-node.js';
import { specSchema } from './spec-schemas.js';

let compiled: ValidateFunction | undefined;

function validator(): ValidateFunction {
  compiled ??= specSchema('Config');
  return compiled;
}

/** Throws ValidationError naming the bad key (`config.targets[1].weight`); returns the config typed. */
export function assertValidConfig(config: unknown): ConfigNode {
  const validate = validator();
  if (validate(config)) {
    // What the schema cannot say: conditional target names and condition operators.
    assertRoutable(config as ConfigNode, 'config');
    return config as ConfigNode;
  }
  const errors = (validate.errors ?? []).map((error: ErrorObject) => ({ ...error, instancePath: `/config${error.instancePath}` }));
  throw toValidationError(errors);
}
