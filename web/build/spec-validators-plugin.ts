/**
 * `virtual:spec-validators`: request-body schemas of the spec (generated/openapi.json, bundled
 * from spec/openapi.yaml) compiled by ajv into plain code at build time, one named export per
 * schema. The console's CSP allows no eval, so ajv cannot compile in the browser; the compiled
 * validators are the same ajv checks gw runs.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import standaloneCode from 'ajv/dist/standalone';
import type { Plugin } from 'vite';
import { VALIDATED_SCHEMAS } from '../src/api/validated-schemas.ts';

const ID = 'virtual:spec-validators';
const SPEC = path.resolve(import.meta.dirname, '..', '..', 'generated', 'openapi.json');

export function specValidatorsPlugin(): Plugin {
  return {
    name: 'gw-spec-validators',
    resolveId: { filter: { id: new RegExp(`^${ID}$`) }, handler: () => `\0${ID}` },
    load: {
      filter: { id: new RegExp(`^\0${ID}$`) },
      handler() {
        this.addWatchFile(SPEC);
        const spec = JSON.parse(readFileSync(SPEC, 'utf8')) as { components: unknown };
        // strict: false because the spec carries OpenAPI keywords (discriminator, x-gw-*); gw checks formats itself.
        const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: false, code: { source: true, esm: true } });
        ajv.addSchema({ $id: 'gw-spec', components: spec.components });
        for (const name of VALIDATED_SCHEMAS) ajv.addSchema({ $id: `gw-${name}`, $ref: `gw-spec#/components/schemas/${name}` });
        const code = standaloneCode(ajv, Object.fromEntries(VALIDATED_SCHEMAS.map((name) => [name, `gw-${name}`])));
        // Named exports from ajv, and all of them as the default export (one typed import).
        return `${code}\nexport default { ${VALIDATED_SCHEMAS.join(', ')} };\n`;
      },
    },
  };
}
