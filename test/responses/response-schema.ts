/**
 * The spec's Response schema as a validator, for what the post-response step cannot check: the
 * Response objects inside stream events (`response.created`, `.completed`, `.failed`, ...).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { projectRoot } from '../../core/project-root.js';

const spec = JSON.parse(readFileSync(path.join(projectRoot(), 'generated/openapi.json'), 'utf8')) as object;
const ajv = new Ajv2020({ strict: false, allErrors: true });
ajv.addSchema(spec, 'spec');
const validate = ajv.getSchema('spec#/components/schemas/Response')!;

/** The validation errors of a Response object against the spec, as text; '' when it is valid. */
export function responseSchemaErrors(response: unknown): string {
  return validate(response) ? '' : ajv.errorsText(validate.errors);
}
