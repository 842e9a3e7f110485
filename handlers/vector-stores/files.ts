import { ownerOf, pathParam } from '../assistants/owner.js';
import { chunkingOf } from '../../gateway/vector-stores/chunking.js';
import { vectorStoreFileObject } from '../../gateway/vector-stores/wire.js';
import type { Call } from '../../core/call.js';
import { NotFoundError } from '../../core/errors.js';
import { body, query, type Handler } from '../types.js';

function visibleStore(c: Parameters<Handler>[0], call: Call) {
  return call.services.vectorStores.visible(ownerOf(call).workspaceId, pathParam(c, 'vector_store_id'));
}

export const createVectorStoreFile: Handler = async (c, call) => {
  const store = await visibleStore(c, call);
  const input = body<'createVectorStoreFile'>(c);
  const vectorStores = call.services.vectorStores;
  await vectorStores.attach(store, [input.file_id], chunkingOf(input.chunking_strategy), input.attributes ?? null);
  return { body: vectorStoreFileObject((await vectorStores.repository.getFile(store.id, input.file_id))!) };
};

export const listVectorStoreFiles: Handler = async (c, call) => {
  const store = await visibleStore(c, call);
  const params = query<'listVectorStoreFiles'>(c);
  const page = await call.services.vectorStores.repository.listFiles(store.id, params, params.filter ? { status: params.filter } : {});
  return { body: { ...page, data: page.data.map(vectorStoreFileObject) } };
};

export const getVectorStoreFile: Handler = async (c, call) => {
  const store = await visibleStore(c, call);
  const fileId = pathParam(c, 'file_id');
  const file = await call.services.vectorStores.repository.getFile(store.id, fileId);
  if (!file) throw new NotFoundError('Vector store file', fileId);
  return { body: vectorStoreFileObject(file) };
};

export const deleteVectorStoreFile: Handler = async (c, call) => {
  const store = await visibleStore(c, call);
  const fileId = pathParam(c, 'file_id');
  if (!(await call.services.vectorStores.repository.deleteFile(store.id, fileId))) throw new NotFoundError('Vector store file', fileId);
  return { body: { id: fileId, object: 'vector_store.file.deleted', deleted: true } };
};

export const createVectorStoreFileBatch: Handler = async (c, call) => {
  const store = await visibleStore(c, call);
  const input = body<'createVectorStoreFileBatch'>(c);
  return { body: await call.services.vectorStores.createBatch(store, [...new Set(input.file_ids)], chunkingOf(input.chunking_strategy), input.attributes ?? null) };
};

export const getVectorStoreFileBatch: Handler = async (c, call) => {
  const store = await visibleStore(c, call);
  return { body: await call.services.vectorStores.batchView(store.id, pathParam(c, 'batch_id')) };
};

export const cancelVectorStoreFileBatch: Handler = async (c, call) => {
  const store = await visibleStore(c, call);
  const batchId = pathParam(c, 'batch_id');
  const vectorStores = call.services.vectorStores;
  await vectorStores.batchView(store.id, batchId);
  await vectorStores.repository.cancelBatch(store.id, batchId);
  return { body: await vectorStores.batchView(store.id, batchId) };
};

export const listFilesInVectorStoreBatch: Handler = async (c, call) => {
  const store = await visibleStore(c, call);
  const batchId = pathParam(c, 'batch_id');
  const vectorStores = call.services.vectorStores;
  await vectorStores.batchView(store.id, batchId);
  const params = query<'listFilesInVectorStoreBatch'>(c);
  const page = await vectorStores.repository.listFiles(store.id, params, { batch_id: batchId, ...(params.filter ? { status: params.filter } : {}) });
  return { body: { ...page, data: page.data.map(vectorStoreFileObject) } };
};
