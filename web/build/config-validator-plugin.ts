/**
 * `virtual:config-validator`: the spec's Config schema (generated/openapi.json, bundled from
 * spec/openapi.yaml) compiled by ajv into plain code at build time. The console's CSP allows no
 * eval, so ajv cannot compile in the browser; the compiled validator is the same ajv check.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import standaloneCode from 'ajv/dist/standalone';
import type { Plugin } from 'vite';

const ID = 'virtual:config-validator';
const SPEC = path.resolve(import.meta.dirname, '..', '..', 'generated', 'openapi.json');

export function configValidatorPlugin(): Plugin {
  return {
    name: 'gw-config-validator',
    resolveId: { filter: { id: new RegExp(`^${ID}$`) }, handler: () => `\0${ID}` },
    load: {
      filter: { id: new RegExp(`^\0${ID}$`) },
      handler() {
        this.addWatchFile(SPEC);
        const spec = JSON.parse(readFileSync(SPEC, 'utf8')) as { components: unknown };
        // strict: false because the spec carries OpenAPI keywords (discriminator, x-gw-*); gw checks formats itself.
        const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: false, code: { source: true, esm: true } });
        ajv.addSchema({ $id: 'gw-spec', components: spec.components });
        const validate = ajv.compile({ $id: 'gw-config', $ref: 'gw-spec#/components/schemas/Config' });
        return standaloneCode(ajv, validate);
      },
    },
  };
}
