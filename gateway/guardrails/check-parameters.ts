/**
 * Validation of a guardrail's checks, shared by the Admin API (create, update) and inline
 * guardrails in configs: every check id must name a built-in check, and its parameters must
 * match that check's parametersSchema (compiled once per check) and its own extra rules.
 * `forwardHeaders` is vetted for every check that takes it.
 */
import type { ErrorObject, ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { ValidationError } from '../../core/errors.js';
import { toValidationError } from '../../core/validation-message.js';
import { findGuardrailCheck } from './checks/index.js';
import type { GuardrailCheck } from './check-types.js';
import type { GuardrailCheckEntry } from './definition.js';
import { checkForwardHeaders } from './forward-headers.js';

const ajv = new Ajv2020({ strict: false, allErrors: false });
addFormats.default(ajv);
const validators = new Map<string, ValidateFunction>();

function validatorFor(check: GuardrailCheck): ValidateFunction {
  let validate = validators.get(check.id);
  if (!validate) {
    validate = ajv.compile(check.parametersSchema);
    validators.set(check.id, validate);
  }
  return validate;
}

/** `checks[2]` -> the JSON pointer toValidationError reads back as that param. */
function pointerOf(param: string): string {
  return '/' + param.replace(/\[(\d+)\]/g, '.$1').split('.').filter(Boolean).join('/');
}

/** Throws ValidationError naming the field (`checks[1].parameters.rule`); returns the checks with defaulted parameters. */
export function assertValidChecks(checks: GuardrailCheckEntry[], param: string): GuardrailCheckEntry[] {
  return checks.map((entry, index) => {
    const at = `${param}[${index}]`;
    const check = findGuardrailCheck(entry.id);
    if (!check) throw new ValidationError(`${at}.id names no built-in check: ${entry.id}`, `${at}.id`, 'unknown_guardrail_check');
    const parameters = structuredClone(entry.parameters ?? {});
    const validate = validatorFor(check);
    if (!validate(parameters)) {
      const prefix = pointerOf(`${at}.parameters`);
      throw toValidationError((validate.errors ?? []).map((error: ErrorObject) => ({ ...error, instancePath: prefix + error.instancePath })));
    }
    if ('forwardHeaders' in parameters) parameters.forwardHeaders = checkForwardHeaders(parameters.forwardHeaders, `${at}.parameters.forwardHeaders`);
    check.assertParameters?.(parameters, `${at}.parameters`);
    return { ...entry, parameters };
  });
}
