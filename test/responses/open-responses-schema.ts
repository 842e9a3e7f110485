/**
 * The Open Responses specification's JSON schemas (test/fixtures/open-responses) as validators, the
 * way its compliance suite checks a server: a Response against `ResponseResource`, a compaction
 * against `CompactResource`, and each stream event against the `*StreamingEvent` schema of its type
 * (an event type the specification has no schema for fails).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { projectRoot } from '../../core/project-root.js';

type SchemaDoc = { components: { schemas: Record<string, { properties?: { type?: { enum?: string[] } } }> } };

const doc = JSON.parse(readFileSync(path.join(projectRoot(), 'test/fixtures/open-responses/openapi.json'), 'utf8')) as SchemaDoc;
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
ajv.addSchema(doc, 'open-responses');
const schema = (name: string) => ajv.getSchema(`open-responses#/components/schemas/${name}`)!;

const eventSchemas = new Map<string, ValidateFunction>();
for (const [name, definition] of Object.entries(doc.components.schemas)) {
  const type = definition.properties?.type?.enum?.[0];
  if (name.endsWith('StreamingEvent') && type) eventSchemas.set(type, schema(name));
}

function errorsOf(validate: ValidateFunction, value: unknown): string {
  return validate(value) ? '' : ajv.errorsText(validate.errors);
}

/** '' when the Response object is valid. */
export function openResponsesResponseErrors(response: unknown): string {
  return errorsOf(schema('ResponseResource'), response);
}

export function openResponsesCompactionErrors(compaction: unknown): string {
  return errorsOf(schema('CompactResource'), compaction);
}

/** '' when the event is valid for its type. */
export function openResponsesEventErrors(event: { type?: unknown }): string {
  const validate = typeof event.type === 'string' ? eventSchemas.get(event.type) : undefined;
  if (!validate) return `no Open Responses schema for event type ${String(event.type)}`;
  return errorsOf(validate, event);
}

/** '' when a WebSocket error (one outside a response's event stream) has the WebSocketErrorEvent shape. */
export function openResponsesWebSocketErrorErrors(event: unknown): string {
  return errorsOf(schema('WebSocketErrorEvent'), event);
}
