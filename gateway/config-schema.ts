/**
 * The spec's Config schema (spec/schemas/configs.yaml), compiled once: the gateway checks inline
 * `x-gw-config` JSON with it, exactly as the Admin API checks a config at save.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { projectRoot } from '../server/project-root.js';
import { toValidationError } from '../server/validation-message.js';
import { assertRoutable } from './routing/config-checks.js';
import type { ConfigNode } from './routing/config-node.js';

const SPEC_ID = 'gw-openapi.json';

let compiled: ValidateFunction | undefined;

function validator(): ValidateFunction {
  if (!compiled) {
    const spec = JSON.parse(readFileSync(path.join(projectRoot(), 'generated/openapi.json'), 'utf8')) as Record<string, unknown>;
    // strict: false because the OpenAPI document carries keywords JSON Schema does not know (paths, examples...).
    const ajv = new Ajv2020({ strict: false, allErrors: false });
    addFormats.default(ajv);
    ajv.addSchema({ ...spec, $id: SPEC_ID });
    compiled = ajv.getSchema(`${SPEC_ID}#/components/schemas/Config`);
    if (!compiled) throw new Error('generated/openapi.json has no components.schemas.Config');
  }
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
