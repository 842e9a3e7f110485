/**
 * The hosted tools gw runs itself when the provider does not host them (the chat path):
 * - `file_search` with `vector_store_ids`: offered as a function `file_search({query})`; gw searches
 *   its own vector stores (the assistants runs' search, file-search.ts), the model reads the
 *   passages behind source markers, and the markers its answer repeats become `file_citation`
 *   annotations. Output item: `file_search_call` (results only with include
 *   `file_search_call.results`).
 * - `mcp`: the server's tools (allowed_tools applied) listed (`mcp_list_tools` item) and offered as
 *   functions `<server_label>__<tool>`; a call runs on the server (`mcp_call` item), or, when
 *   require_approval asks for it, stops the response with an `mcp_approval_request` item whose id
 *   is `mcpr_` + the model's call id: the client's `mcp_approval_response` names it, and the
 *   next response runs (or declines) the call the conversation still holds.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Call } from '../../core/call.js';
import { principalOf } from '../../core/call.js';
import { ApiError, UpstreamError } from '../../core/errors.js';
import { passagesOf, searchVectorStores } from '../assistants/file-search.js';
import { storedPrincipal } from '../batches/line-call.js';
import type { AttributeFilter } from '../vector-stores/attribute-filter.js';
import type { ChatRequest } from '../providers/types.js';
import { newItemId } from './ids.js';
import { connectMcp, type McpToolSpec } from './mcp-connection.js';
import { chatToolName, type ChatToolCall } from './tools.js';
import type { CreateResponseRequest, OutputItem } from './wire.js';

type ChatTool = NonNullable<ChatRequest['tools']>[number];
type Item = OutputItem & Record<string, unknown>;

export const FILE_SEARCH_FUNCTION = 'file_search';
const APPROVAL_PREFIX = 'mcpr_';
/** The results' include value (OpenAI's name). */
const RESULTS_INCLUDE = 'file_search_call.results';

/** One tool call gw ran: its output item, the stream events between the item's added and done, and what the model reads. */
export interface GwToolRun {
  item: Item;
  progress: string[];
  /** The tool message's text; undefined when the response stops here (an approval is asked). */
  output?: string;
}

interface FileSearchSpec {
  type: 'file_search';
  vector_store_ids: string[];
  max_num_results?: number;
  filters?: AttributeFilter | null;
  ranking_options?: { score_threshold?: number; ranker?: string };
}

type ApprovalSetting = 'always' | 'never' | { always?: { tool_names?: string[] }; never?: { tool_names?: string[] } } | null | undefined;

interface McpSpec extends McpToolSpec {
  type: 'mcp';
  allowed_tools?: string[] | { tool_names?: string[] } | null;
  require_approval?: ApprovalSetting;
}

interface McpServerTools {
  spec: McpSpec;
  client: Client;
}

/** Whether OpenAI's rules ask approval for this tool: everything unless `never`, or a filter's `never` names it. */
function needsApproval(setting: ApprovalSetting, tool: string): boolean {
  if (setting === 'never') return false;
  if (setting === 'always' || setting == null) return true;
  if (setting.never?.tool_names?.includes(tool)) return false;
  if (setting.always?.tool_names?.includes(tool)) return true;
  // A filter naming neither: OpenAI asks.
  return true;
}

function allowedNames(allowed: McpSpec['allowed_tools']): string[] | undefined {
  if (!allowed) return undefined;
  return Array.isArray(allowed) ? allowed : allowed.tool_names;
}

function searchQuery(args: string): string {
  try {
    const query = (JSON.parse(args) as { query?: unknown }).query;
    if (typeof query === 'string' && query.trim()) return query;
  } catch {
    // The raw text is the query.
  }
  return args;
}

function parsedArguments(args: string): Record<string, unknown> {
  try {
    const parsed = JSON.parse(args || '{}') as unknown;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** An MCP tool result as text: its text parts, other parts as JSON. */
function resultText(content: unknown): string {
  if (!Array.isArray(content)) return JSON.stringify(content ?? '');
  return content.map((part: { type?: string; text?: string }) => (part.type === 'text' ? (part.text ?? '') : JSON.stringify(part))).join('\n');
}

export class GwTools {
  readonly chatTools: ChatTool[] = [];
  /** `mcp_list_tools` items, first in the output. */
  readonly listItems: Item[] = [];
  private readonly mcpByName = new Map<string, { server: McpServerTools; tool: string }>();
  private fileSearch: FileSearchSpec | undefined;
  private readonly servers: McpServerTools[] = [];
  private searches = 0;
  /** Marker key -> file, over every search of this response. */
  private readonly sources = new Map<string, { file_id: string; filename: string }>();

  constructor(
    private readonly call: Call,
    private readonly include: readonly string[],
  ) {}

  /** Tool types gw runs here, for the omission header to leave out. */
  get types(): string[] {
    return [...(this.fileSearch ? ['file_search'] : []), ...(this.servers.length ? ['mcp'] : [])];
  }

  runs(chatName: string): boolean {
    return (chatName === FILE_SEARCH_FUNCTION && this.fileSearch !== undefined) || this.mcpByName.has(chatName);
  }

  addFileSearch(spec: FileSearchSpec): void {
    if (this.fileSearch) return;
    this.fileSearch = spec;
    this.chatTools.push({
      type: 'function',
      function: {
        name: FILE_SEARCH_FUNCTION,
        description: 'Searches the files the user provided. Returns passages, each after a source marker like 【0:1†name】. When the answer uses a passage, put its marker right after the sentence it supports.',
        parameters: { type: 'object', properties: { query: { type: 'string', description: 'What to look for.' } }, required: ['query'] } as unknown as Record<string, never>,
      },
    });
  }

  async addMcp(spec: McpSpec, param: string): Promise<void> {
    let client: Client;
    let listed: Awaited<ReturnType<Client['listTools']>>['tools'];
    try {
      client = await connectMcp(this.call, spec, param);
      listed = (await client.listTools()).tools;
    } catch (error) {
      if (error instanceof ApiError) throw error;
      // OpenAI answers 424 when it cannot list a server's tools.
      throw new UpstreamError(424, `Error retrieving tool list from MCP server '${spec.server_label}': ${(error as Error).message}`, 'mcp_list_tools_failed', { param });
    }
    const server = { spec, client };
    this.servers.push(server);
    const allowed = allowedNames(spec.allowed_tools);
    const tools = listed.filter((tool) => !allowed || allowed.includes(tool.name));
    for (const tool of tools) {
      const name = chatToolName(tool.name, spec.server_label);
      this.mcpByName.set(name, { server, tool: tool.name });
      this.chatTools.push({ type: 'function', function: { name, ...(tool.description ? { description: tool.description } : {}), parameters: tool.inputSchema as unknown as Record<string, never> } });
    }
    this.listItems.push({
      type: 'mcp_list_tools',
      id: newItemId('mcpl'),
      server_label: spec.server_label,
      tools: tools.map((tool) => ({ name: tool.name, description: tool.description ?? null, input_schema: tool.inputSchema, annotations: tool.annotations ?? null })),
      error: null,
    } as Item);
  }

  /** Runs a call the model made; `approvalId` when the client approved it. */
  async run(chatCall: ChatToolCall, approvalId?: string): Promise<GwToolRun> {
    if (chatCall.function.name === FILE_SEARCH_FUNCTION && this.fileSearch) return this.search(chatCall);
    const target = this.mcpByName.get(chatCall.function.name)!;
    const { spec } = target.server;
    const base = { type: 'mcp_call', id: newItemId('mcp'), server_label: spec.server_label, name: target.tool, arguments: chatCall.function.arguments };
    if (!approvalId && needsApproval(spec.require_approval, target.tool)) {
      const item = { type: 'mcp_approval_request', id: `${APPROVAL_PREFIX}${chatCall.id}`, server_label: spec.server_label, name: target.tool, arguments: chatCall.function.arguments } as Item;
      return { item, progress: [] };
    }
    const approval = approvalId ? { approval_request_id: approvalId } : {};
    try {
      const result = await target.server.client.callTool({ name: target.tool, arguments: parsedArguments(chatCall.function.arguments) });
      const text = resultText(result.content);
      if (result.isError) {
        const item = { ...base, ...approval, status: 'failed', output: null, error: text } as Item;
        return { item, progress: ['response.mcp_call.in_progress', 'response.mcp_call.failed'], output: `The tool failed: ${text}` };
      }
      return { item: { ...base, ...approval, status: 'completed', output: text, error: null } as Item, progress: ['response.mcp_call.in_progress', 'response.mcp_call.completed'], output: text };
    } catch (error) {
      const message = (error as Error).message;
      const item = { ...base, ...approval, status: 'failed', output: null, error: message } as Item;
      return { item, progress: ['response.mcp_call.in_progress', 'response.mcp_call.failed'], output: `The tool call failed: ${message}` };
    }
  }

  /** An approval the client answered: the call it names, run (approved) or declined. */
  async answerApproval(chatCall: ChatToolCall, approvalId: string, approve: boolean, reason?: string | null): Promise<GwToolRun | { output: string }> {
    if (approve && this.mcpByName.has(chatCall.function.name)) return this.run(chatCall, approvalId);
    return { output: approve ? 'The tool is no longer offered.' : `The user declined this call${reason ? `: ${reason}` : '.'}` };
  }

  private async search(chatCall: ChatToolCall): Promise<GwToolRun> {
    const spec = this.fileSearch!;
    const query = searchQuery(chatCall.function.arguments);
    const principal = principalOf(this.call);
    const hits = await searchVectorStores(this.call.services, principal.gatewayWorkspaceId, storedPrincipal(principal), spec.vector_store_ids, {
      query,
      ...(spec.max_num_results ? { maxResults: spec.max_num_results } : {}),
      ...(spec.ranking_options?.score_threshold !== undefined ? { scoreThreshold: spec.ranking_options.score_threshold } : {}),
      ...(spec.filters ? { filters: spec.filters } : {}),
    });
    const searchIndex = this.searches++;
    const { output, sources } = passagesOf(hits, searchIndex);
    for (const [key, fileId] of Object.entries(sources)) this.sources.set(key, { file_id: fileId, filename: hits[Number(key.split(':')[1])]!.filename });
    const results = this.include.includes(RESULTS_INCLUDE) ? hits.map((hit) => ({ file_id: hit.file_id, filename: hit.filename, score: hit.score, text: hit.text, attributes: hit.attributes ?? {} })) : null;
    const item = { type: 'file_search_call', id: newItemId('fs'), status: 'completed', queries: [query], results } as Item;
    return { item, progress: ['response.file_search_call.in_progress', 'response.file_search_call.searching', 'response.file_search_call.completed'], output };
  }

  /** `file_citation` annotations (OpenAI's Responses shape) for the source markers the text repeats. */
  citations(text: string): Array<Record<string, unknown>> {
    const annotations: Array<Record<string, unknown>> = [];
    for (const match of text.matchAll(/【(\d+:\d+)†[^】]*】/g)) {
      const source = this.sources.get(match[1]!);
      if (source) annotations.push({ type: 'file_citation', file_id: source.file_id, filename: source.filename, index: match.index });
    }
    return annotations;
  }

  async close(): Promise<void> {
    await Promise.all(this.servers.map((server) => server.client.close().catch(() => undefined)));
  }
}

/**
 * Whether gw runs this tool on the chat path: file_search over vector stores; mcp with a server_url,
 * or without one when its server_label is a gw MCP server of the caller's organisation (else, as a
 * connector, it is left to a host that runs it).
 */
async function gwRuns(call: Call, tool: { type: string } & Record<string, unknown>): Promise<boolean> {
  if (tool.type === 'file_search') return Array.isArray(tool.vector_store_ids);
  if (tool.type !== 'mcp' || tool.connector_id) return false;
  if (typeof tool.server_url === 'string') return true;
  if (typeof tool.server_label !== 'string') return false;
  const server = await call.services.store.mcpServers.findBySlug(tool.server_label);
  return server?.organisation_id === principalOf(call).organisationId;
}

/** The gw-run tools of a request, or undefined when it offers none. MCP servers are listed here. */
export async function prepareGwTools(call: Call, request: CreateResponseRequest): Promise<GwTools | undefined> {
  const tools = (request.tools ?? []) as Array<{ type: string } & Record<string, unknown>>;
  const runs: Array<{ tool: (typeof tools)[number]; index: number }> = [];
  for (const [index, tool] of tools.entries()) if (await gwRuns(call, tool)) runs.push({ tool, index });
  if (runs.length === 0) return undefined;
  const gw = new GwTools(call, (request as { include?: string[] | null }).include ?? []);
  try {
    for (const { tool, index } of runs) {
      if (tool.type === 'file_search') gw.addFileSearch(tool as unknown as FileSearchSpec);
      else await gw.addMcp(tool as unknown as McpSpec, `tools[${index}]`);
    }
  } catch (error) {
    await gw.close();
    throw error;
  }
  return gw;
}

/** The approval request id an mcp_approval_response names, as the model's call id it stands for. */
export function approvedCallId(approvalRequestId: string): string | undefined {
  return approvalRequestId.startsWith(APPROVAL_PREFIX) ? approvalRequestId.slice(APPROVAL_PREFIX.length) : undefined;
}
