import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { loadSpec } from '../../core/spec-document.js';
import { toValidationError } from '../../core/validation-message.js';
import type { Call } from '../../core/call.js';
import { runChat } from '../chat/run-chat.js';
import type { ChatRequest, CompletionRequest, EmbeddingRequest } from '../providers/types.js';
import { runEmbeddings, runTextCompletion } from '../chat/run-operations.js';
import { runResponse } from '../responses/run-response.js';
import type { CreateResponseRequest } from '../responses/wire.js';

/** What a line's request answered: the status and body that go in the output (or error) file. */
export interface LineAnswer {
  status: number;
  body: unknown;
}

/** Runs one batch line's body through gw's own pipeline for its endpoint. Throws ApiError as the endpoint would answer. */
export type LineExecutor = (call: Call, body: Record<string, unknown>) => Promise<LineAnswer>;

let ajv: Ajv2020 | undefined;

/** The spec's schema for a request body, compiled once: batch lines are checked as the endpoint checks a request. */
function specValidator(schemaName: string): ValidateFunction {
  if (!ajv) {
    ajv = new Ajv2020({ strict: false, discriminator: true, allErrors: false, validateSchema: false });
    addFormats.default(ajv);
    ajv.addSchema({ $id: 'gw-spec', components: loadSpec().components } as object);
  }
  const validate = ajv.getSchema(`gw-spec#/components/schemas/${schemaName}`);
  if (!validate) throw new Error(`the spec has no schema ${schemaName}`);
  return validate;
}

function chatExecutor(): LineExecutor {
  let validate: ValidateFunction | undefined;
  return async (call, body) => {
    // A batch answers whole bodies: a line asking to stream is run without streaming.
    const request = { ...body, stream: false } as Record<string, unknown>;
    delete request.stream_options;
    validate ??= specValidator('ChatCompletionRequest');
    if (!validate(request)) throw toValidationError(validate.errors);
    const result = await runChat(call, request as unknown as ChatRequest);
    return { status: result.status === 246 ? 200 : result.status, body: result.completion };
  };
}

function embeddingsExecutor(): LineExecutor {
  let validate: ValidateFunction | undefined;
  return async (call, body) => {
    validate ??= specValidator('EmbeddingRequest');
    if (!validate(body)) throw toValidationError(validate.errors);
    const result = await runEmbeddings(call, body as unknown as EmbeddingRequest);
    return { status: result.status, body: result.body };
  };
}

function completionsExecutor(): LineExecutor {
  let validate: ValidateFunction | undefined;
  return async (call, body) => {
    const legacy = { ...body, stream: false } as Record<string, unknown>;
    delete legacy.stream_options;
    validate ??= specValidator('CompletionRequest');
    if (!validate(legacy)) throw toValidationError(validate.errors);
    const result = await runTextCompletion(call, legacy as unknown as CompletionRequest);
    return { status: result.status === 246 ? 200 : result.status, body: result.body };
  };
}

function responsesExecutor(): LineExecutor {
  let validate: ValidateFunction | undefined;
  return async (call, body) => {
    const request = { ...body, stream: false } as Record<string, unknown>;
    validate ??= specValidator('CreateResponseRequest');
    if (!validate(request)) throw toValidationError(validate.errors);
    const result = await runResponse(call, request as unknown as CreateResponseRequest);
    return { status: result.status === 246 ? 200 : result.status, body: result.body };
  };
}

/**
 * Endpoint -> how its lines run. An endpoint OpenAI batches accept but gw cannot run yet is absent:
 * each of its lines fails into the error file, saying so.
 */
export const LINE_EXECUTORS: ReadonlyMap<string, LineExecutor> = new Map([
  ['/v1/chat/completions', chatExecutor()],
  ['/v1/embeddings', embeddingsExecutor()],
  ['/v1/completions', completionsExecutor()],
  ['/v1/responses', responsesExecutor()],
]);

/** The endpoints `POST /v1/batches` accepts (OpenAI's list). */
export const BATCH_ENDPOINTS = ['/v1/chat/completions', '/v1/embeddings', '/v1/completions', '/v1/responses'] as const;
