/**
 * The vector store the file_search tests search: two files (animals.txt, baking.txt) ingested
 * through the bag-of-words embedder saved as `@embedder`, and the answer a model gives citing the
 * baking passage.
 */
import assert from 'node:assert/strict';
import OpenAI, { toFile } from 'openai';

export const ANIMALS = 'The red fox jumps over the lazy dog. Foxes hunt mice in the meadow at night.';
export const BAKING = 'To bake bread, knead the flour dough with yeast and water, let it rise, then bake the loaf in a hot oven.';
export const MARKER = '【0:0†baking.txt】';
export const ANSWER = `Knead the dough, let it rise and bake it hot.${MARKER}`;

/** The saved provider body for the word embedder at `embedderUrl` (gw's `@embedder`). */
export function embedderProvider(embedderUrl: string) {
  return { name: 'Embedder', slug: 'embedder', ai_provider_id: 'openai', key: 'sk-embed', configurations: { custom_host: `${embedderUrl}/v1` } };
}

/** Uploads both files and waits (bounded) until the store has ingested them. */
export async function createKitchenStore(client: OpenAI): Promise<{ bakingId: string; vectorStoreId: string }> {
  const upload = async (name: string, text: string) => (await client.files.create({ file: await toFile(Buffer.from(text), name), purpose: 'assistants' })).id;
  const bakingId = await upload('baking.txt', BAKING);
  const animalsId = await upload('animals.txt', ANIMALS);
  const store = await client.vectorStores.create({ name: 'Kitchen', file_ids: [animalsId, bakingId], metadata: { 'x-gw-embedding-model': '@embedder/text-embedding-3-small' } });
  for (let i = 0; i < 200 && (await client.vectorStores.retrieve(store.id)).status === 'in_progress'; i++) await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal((await client.vectorStores.retrieve(store.id)).file_counts.completed, 2);
  return { bakingId, vectorStoreId: store.id };
}
