/**
 * Schemas of the spec's components (generated/openapi.json), compiled once on first use: what
 * the gateway checks outside request validation (an inline `x-gw-config`, a rendered prompt)
 * is checked by the same schema the Admin API and the chat route use.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { projectRoot } from '../core/project-root.js';

const SPEC_ID = 'gw-openapi.json';

let ajv: Ajv2020 | undefined;

export function specSchema(name: string): ValidateFunction {
  if (!ajv) {
    const spec = JSON.parse(readFileSync(path.join(projectRoot(), 'generated/openapi.json'), 'utf8')) as Record<string, unknown>;
    // strict: false because the OpenAPI document carries keywords JSON Schema does not know (paths, examples...).
    ajv = new Ajv2020({ strict: false, allErrors: false });
    addFormats.default(ajv);
    ajv.addSchema({ ...spec, $id: SPEC_ID });
  }
  const compiled = ajv.getSchema(`${SPEC_ID}#/components/schemas/${name}`);
  if (!compiled) throw new Error(`generated/openapi.json has no components.schemas.${name}`);
  return compiled;
}
