import { principalOf, type Call } from '../../core/call.js';
import { NotFoundError } from '../../core/errors.js';
import { runCompaction } from '../../gateway/responses/compact.js';
import { runResponse } from '../../gateway/responses/run-response.js';
import { inputItemsPage } from '../../gateway/responses/input-items.js';
import { STREAMED, body, query, type Handler } from '../types.js';

function responseId(c: Parameters<Handler>[0]): string {
  return String(c.request.params.id);
}

async function storedResponse(call: Call, id: string) {
  const stored = await call.services.store.responses.get(principalOf(call).gatewayWorkspaceId, id);
  if (!stored) throw new NotFoundError('Response', id);
  return stored;
}

export const createResponse: Handler = async (c, call) => {
  const result = await runResponse(call, body<'createResponse'>(c));
  return result.body ? { status: result.status, body: result.body, headers: result.headers } : STREAMED;
};

export const getResponse: Handler = async (c, call) => ({ body: (await storedResponse(call, responseId(c))).body });

export const deleteResponse: Handler = async (c, call) => {
  const id = responseId(c);
  if (!(await call.services.store.responses.delete(principalOf(call).gatewayWorkspaceId, id))) throw new NotFoundError('Response', id);
  return { body: { id, object: 'response', deleted: true } };
};

export const listResponseInputItems: Handler = async (c, call) => {
  const stored = await storedResponse(call, responseId(c));
  return { body: inputItemsPage(stored.input_items, query<'listResponseInputItems'>(c)) };
};

export const compactResponse: Handler = async (c, call) => runCompaction(call, body<'compactResponse'>(c));
