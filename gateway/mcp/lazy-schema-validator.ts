import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';

/**
 * The MCP SDK's Server and Client each build an Ajv instance when made, and gw makes both for
 * every gateway request: that construction was the largest single cost of a relayed tools/call.
 * gw's relay rarely validates a JSON Schema itself, so the instance is built on first use, per
 * Server or Client as before (a shared one would mix schemas of different upstreams by $id and
 * keep every compiled schema alive).
 */
export class LazySchemaValidator implements jsonSchemaValidator {
  private inner: AjvJsonSchemaValidator | undefined;

  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    this.inner ??= new AjvJsonSchemaValidator();
    return this.inner.getValidator<T>(schema);
  }
}
