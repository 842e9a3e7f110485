/**
 * file_search in a run: gw offers the model a function tool `file_search({query})` on every
 * provider, runs the search itself over the vector stores of the assistant and the thread, and
 * hands the model the top chunks, each behind a source marker 【search:result†filename】. Markers
 * the answer repeats become `file_citation` annotations on the run's message.
 */
import type { Services } from '../../core/services.js';
import type { StoredPrincipal } from '../batches/line-call.js';
import type { AttributeFilter } from '../vector-stores/attribute-filter.js';
import type { SearchHit } from '../vector-stores/vector-stores.js';
import { expiresAtMs } from '../vector-stores/wire.js';
import type { Owner } from './thread-writer.js';
import type { RunObject } from './wire.js';

export const FILE_SEARCH_FUNCTION = 'file_search';
/** A run stops offering the tool after this many searches, so a model that keeps searching still answers. */
export const MAX_SEARCHES_PER_RUN = 5;
const DEFAULT_RESULTS = 20;
const INGEST_WAIT_MS = 60_000;
const RANKER = 'default_2024_08_21';

type FileSearchSettings = { max_num_results?: number; ranking_options?: { score_threshold?: number; ranker?: string } };

export function fileSearchSettings(run: RunObject): FileSearchSettings | undefined {
  const tool = run.tools.find((candidate) => candidate.type === 'file_search') as { file_search?: FileSearchSettings } | undefined;
  return tool ? (tool.file_search ?? {}) : undefined;
}

/** The function tool the model sees. */
export const fileSearchFunction = {
  type: 'function' as const,
  function: {
    name: FILE_SEARCH_FUNCTION,
    description:
      'Searches the files the user provided. Returns passages, each after a source marker like 【0:1†name】. When the answer uses a passage, put its marker right after the sentence it supports.',
    parameters: { type: 'object', properties: { query: { type: 'string', description: 'What to look for.' } }, required: ['query'] },
  },
};

/** The stores to search: the assistant's and the thread's `tool_resources.file_search.vector_store_ids`. */
export async function runVectorStoreIds(services: Services, owner: Owner, run: RunObject): Promise<string[]> {
  const scope = { workspaceId: owner.workspaceId };
  const assistant = run.assistant_id ? await services.store.assistants.get(scope, run.assistant_id) : undefined;
  const thread = await services.store.assistantThreads.get(scope, run.thread_id);
  const ids = [assistant?.body.tool_resources, thread?.body.tool_resources].flatMap((resources) => resources?.file_search?.vector_store_ids ?? []);
  return [...new Set(ids)];
}

export interface SearchOutcome {
  /** The run step's file_search tool call (results with their content; answers leave content out unless asked). */
  toolCall: Record<string, unknown>;
  /** What the model reads as the tool's output. */
  output: string;
  /** Marker key `search:result` -> file id. */
  sources: Record<string, string>;
}

export async function runFileSearch(services: Services, owner: Owner, principal: StoredPrincipal, run: RunObject, call: { id: string; query: string }, searchIndex: number): Promise<SearchOutcome> {
  const settings = fileSearchSettings(run) ?? {};
  const threshold = settings.ranking_options?.score_threshold ?? 0;
  const top = await searchVectorStores(services, owner.workspaceId, principal, await runVectorStoreIds(services, owner, run), { query: call.query, maxResults: settings.max_num_results, scoreThreshold: threshold });
  const { output, sources } = passagesOf(top, searchIndex);
  return {
    toolCall: {
      id: call.id,
      type: 'file_search',
      file_search: {
        ranking_options: { ranker: settings.ranking_options?.ranker && settings.ranking_options.ranker !== 'auto' ? settings.ranking_options.ranker : RANKER, score_threshold: threshold },
        results: top.map((hit) => ({ file_id: hit.file_id, file_name: hit.filename, score: hit.score, content: [{ type: 'text', text: hit.text }] })),
      },
    },
    output,
    sources,
  };
}

export interface StoresQuery {
  query: string;
  maxResults?: number;
  scoreThreshold?: number;
  filters?: AttributeFilter;
}

/**
 * The best passages for a query across vector stores of a workspace (the runs' and the Responses
 * API's file_search): stores deleted or expired are skipped, files still being ingested waited for.
 */
export async function searchVectorStores(services: Services, workspaceId: string, principal: StoredPrincipal, storeIds: readonly string[], query: StoresQuery): Promise<SearchHit[]> {
  const maxResults = query.maxResults ?? DEFAULT_RESULTS;
  const hits: SearchHit[] = [];
  for (const id of storeIds) {
    const store = await services.vectorStores.repository.get(workspaceId, id);
    const expiresAt = store && expiresAtMs(store);
    if (!store || (typeof expiresAt === 'number' && services.now() >= expiresAt)) continue;
    await ingested(services, id);
    hits.push(...(await services.vectorStores.search(store, principal, { queries: [query.query], maxResults, scoreThreshold: query.scoreThreshold ?? 0, ...(query.filters ? { filters: query.filters } : {}) })));
  }
  hits.sort((a, b) => b.score - a.score);
  return hits.slice(0, maxResults);
}

/** What the model reads: each passage behind its marker 【search:result†filename】, and marker key -> file id. */
export function passagesOf(hits: readonly SearchHit[], searchIndex: number): { output: string; sources: Record<string, string> } {
  const sources: Record<string, string> = {};
  const passages = hits.map((hit, index) => {
    sources[`${searchIndex}:${index}`] = hit.file_id;
    return `【${searchIndex}:${index}†${hit.filename}】\n${hit.text}`;
  });
  return { output: passages.length ? passages.join('\n\n') : 'No passage of the files matches the query.', sources };
}

/** Files still being ingested (a store made with the thread a moment ago) are waited for, as OpenAI's runs do, for a while. */
async function ingested(services: Services, vectorStoreId: string): Promise<void> {
  for (let waited = 0; waited < INGEST_WAIT_MS; waited += 200) {
    if ((await services.vectorStores.repository.fileCounts(vectorStoreId)).in_progress === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** `file_citation` annotations for the markers in the answer that name a passage this run was given. */
export function citations(text: string, sources: Record<string, string> | undefined): Array<Record<string, unknown>> {
  if (!sources) return [];
  const annotations: Array<Record<string, unknown>> = [];
  for (const match of text.matchAll(/【(\d+:\d+)†[^】]*】/g)) {
    const fileId = sources[match[1]!];
    if (!fileId) continue;
    annotations.push({ type: 'file_citation', text: match[0], start_index: match.index, end_index: match.index + match[0].length, file_citation: { file_id: fileId } });
  }
  return annotations;
}

/** Steps show results' content only when the caller asks with `include[]=step_details.tool_calls[*].file_search.results[*].content`. */
export const RESULT_CONTENT_INCLUDE = 'step_details.tool_calls[*].file_search.results[*].content';

export function withoutResultContent<Step extends { step_details?: unknown }>(step: Step): Step {
  const details = step.step_details as { type?: string; tool_calls?: Array<Record<string, unknown>> } | undefined;
  if (details?.type !== 'tool_calls' || !details.tool_calls?.some((call) => call.type === 'file_search')) return step;
  const toolCalls = details.tool_calls.map((call) => {
    if (call.type !== 'file_search') return call;
    const search = call.file_search as { results?: Array<Record<string, unknown>> };
    return { ...call, file_search: { ...search, results: (search.results ?? []).map(({ content: _content, ...rest }) => rest) } };
  });
  return { ...step, step_details: { ...details, tool_calls: toolCalls } };
}
