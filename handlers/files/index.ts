import { storeMultipartUpload } from '../../gateway/files/multipart-upload.js';
import { fileObject } from './file-object.js';
import { principalOf } from '../../core/call.js';
import { query, type Handler } from '../types.js';
import { sendFile } from './send-file.js';

function fileIdOf(c: Parameters<Handler>[0]): string {
  return String(c.request.params.file_id);
}

export const createFile: Handler = async (_c, call) => {
  const principal = principalOf(call);
  const file = await storeMultipartUpload(call.req, call.services.files, { organisationId: principal.organisationId, workspaceId: principal.gatewayWorkspaceId });
  return { body: fileObject(file) };
};

export const listFiles: Handler = async (c, call) => {
  const params = query<'listFiles'>(c);
  const { data, hasMore } = await call.services.files.list({
    workspaceId: principalOf(call).gatewayWorkspaceId,
    purpose: params.purpose,
    limit: params.limit ?? 10_000,
    order: params.order ?? 'desc',
    after: params.after,
  });
  return { body: { object: 'list', data: data.map(fileObject), first_id: data[0]?.id ?? null, last_id: data[data.length - 1]?.id ?? null, has_more: hasMore } };
};

export const retrieveFile: Handler = async (c, call) => ({ body: fileObject(await call.services.files.get(principalOf(call).gatewayWorkspaceId, fileIdOf(c))) });

export const deleteFile: Handler = async (c, call) => {
  const id = fileIdOf(c);
  const workspaceId = principalOf(call).gatewayWorkspaceId;
  await call.services.files.delete(workspaceId, id);
  await call.services.vectorStores.repository.forgetFile(workspaceId, id);
  return { body: { id, object: 'file', deleted: true } };
};

export const downloadFile: Handler = async (c, call) => sendFile(call, principalOf(call).gatewayWorkspaceId, fileIdOf(c), { attachment: true });
