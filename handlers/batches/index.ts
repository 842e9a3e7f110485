import { principalOf } from '../../core/call.js';
import { body, query, type Handler } from '../types.js';
import { sendFile } from '../files/send-file.js';
import { batchObject } from './batch-object.js';

function batchIdOf(c: Parameters<Handler>[0]): string {
  return String(c.request.params.batch_id);
}

export const createBatch: Handler = async (c, call) => {
  const batch = await call.services.batches.create(principalOf(call), call.req.headers, body<'createBatch'>(c));
  return { body: batchObject(batch) };
};

export const listBatches: Handler = async (c, call) => {
  const params = query<'listBatches'>(c);
  const { data, hasMore } = await call.services.batches.list(principalOf(call), params.limit ?? 20, params.after);
  return { body: { object: 'list', data: data.map(batchObject), first_id: data[0]?.id ?? null, last_id: data[data.length - 1]?.id ?? null, has_more: hasMore } };
};

export const retrieveBatch: Handler = async (c, call) => ({ body: batchObject(await call.services.batches.get(principalOf(call), batchIdOf(c))) });

export const cancelBatch: Handler = async (c, call) => ({ body: batchObject(await call.services.batches.cancel(principalOf(call), batchIdOf(c))) });

export const updateBatch: Handler = async (c, call) => ({
  body: batchObject(await call.services.batches.setInternalOutputFile(principalOf(call), batchIdOf(c), body<'updateBatch'>(c).internal_output_file_id)),
});

export const getBatchOutput: Handler = async (c, call) => {
  const principal = principalOf(call);
  return sendFile(call, principal.gatewayWorkspaceId, await call.services.batches.outputFileId(principal, batchIdOf(c)));
};
