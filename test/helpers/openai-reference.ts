/** Validates answers against OpenAI's own schemas (the reference OpenAPI subset in /work/shared/reference). */
import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';

const REFERENCE = '/work/shared/reference/openai-openapi-subset.json';

let ajv: Ajv | undefined;

/** Throws with ajv's errors when `value` does not match `components.schemas[name]`. */
export function assertOpenAiShape(name: string, value: unknown): void {
  if (!ajv) {
    const document = JSON.parse(readFileSync(REFERENCE, 'utf8')) as { components: unknown };
    ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
    ajv.addSchema({ $id: 'openai', components: document.components } as object);
  }
  const validate = ajv.getSchema(`openai#/components/schemas/${name}`);
  if (!validate) throw new Error(`the reference has no schema ${name}`);
  if (!validate(value)) throw new Error(`${name}: ${JSON.stringify(validate.errors)}`);
}
