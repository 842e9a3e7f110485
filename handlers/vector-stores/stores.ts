import { ownerOf, pathParam } from '../assistants/owner.js';
import { storedPrincipal } from '../../gateway/batches/line-call.js';
import { chunkingOf } from '../../gateway/vector-stores/chunking.js';
import { checkedEmbeddingModel, EMBEDDING_MODEL_KEY } from '../../gateway/vector-stores/embedding-model.js';
import { principalOf } from '../../core/call.js';
import { NotFoundError, ValidationError } from '../../core/errors.js';
import { body, query, type Handler } from '../types.js';

export const createVectorStore: Handler = async (c, call) => {
  const input = body<'createVectorStore'>(c);
  const owner = ownerOf(call);
  const chunking = chunkingOf(input.chunking_strategy);
  const model = await checkedEmbeddingModel(call.services.savedResources, owner, input.metadata);
  // Unknown files answer 404 before the store exists.
  for (const id of input.file_ids ?? []) await call.services.files.get(owner.workspaceId, id);
  const vectorStores = call.services.vectorStores;
  const store = await vectorStores.create(owner, storedPrincipal(principalOf(call)), input, model);
  await vectorStores.attach(store, input.file_ids ?? [], chunking, null);
  return { body: await vectorStores.view(store) };
};

export const listVectorStores: Handler = async (c, call) => {
  const vectorStores = call.services.vectorStores;
  const page = await vectorStores.repository.list(ownerOf(call).workspaceId, query<'listVectorStores'>(c));
  return { body: { ...page, data: await Promise.all(page.data.map((store) => vectorStores.view(store))) } };
};

export const getVectorStore: Handler = async (c, call) => {
  const vectorStores = call.services.vectorStores;
  return { body: await vectorStores.view(await vectorStores.visible(ownerOf(call).workspaceId, pathParam(c, 'vector_store_id'))) };
};

export const modifyVectorStore: Handler = async (c, call) => {
  const vectorStores = call.services.vectorStores;
  const store = await vectorStores.visible(ownerOf(call).workspaceId, pathParam(c, 'vector_store_id'));
  const input = body<'modifyVectorStore'>(c);
  // The stored vectors were made by the store's model: queries must use the same one.
  if (input.metadata && input.metadata[EMBEDDING_MODEL_KEY] !== store.embedding_model) {
    throw new ValidationError(`metadata.${EMBEDDING_MODEL_KEY} is fixed when the store is created (${store.embedding_model})`, `metadata.${EMBEDDING_MODEL_KEY}`, 'embedding_model_fixed');
  }
  const patch = {
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(input.metadata ? { metadata: input.metadata } : {}),
    ...(input.expires_after !== undefined ? { expires_after: input.expires_after } : {}),
  };
  await vectorStores.repository.update(store.id, patch);
  return { body: await vectorStores.view({ ...store, ...patch }) };
};

export const deleteVectorStore: Handler = async (c, call) => {
  const id = pathParam(c, 'vector_store_id');
  if (!(await call.services.vectorStores.repository.delete(ownerOf(call).workspaceId, id))) throw new NotFoundError('Vector store', id);
  return { body: { id, object: 'vector_store.deleted', deleted: true } };
};
