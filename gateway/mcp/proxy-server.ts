/**
 * The MCP server gw presents for one upstream server, built with the MCP SDK's Server for one
 * gateway request. Lists are forwarded and filtered to what is enabled for the server; calls of
 * anything else are refused with a JSON-RPC error and never reach the upstream. Tool calls take
 * the tool-call pipeline (limits, guardrails, log).
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { UriTemplate } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  GetPromptResultSchema,
  ListPromptsRequestSchema,
  ListPromptsResultSchema,
  ListResourcesRequestSchema,
  ListResourcesResultSchema,
  ListResourceTemplatesRequestSchema,
  ListResourceTemplatesResultSchema,
  ListToolsRequestSchema,
  ListToolsResultSchema,
  McpError,
  ReadResourceRequestSchema,
  ReadResourceResultSchema,
  type ClientRequest,
} from '@modelcontextprotocol/sdk/types.js';
import type { McpCapabilityType } from '../../store/repositories/mcp-integrations.js';
import type { McpToolCallContext } from './tool-call-context.js';
import { checkRequestParams } from './request-checks.js';
import { runToolCall } from './tool-call.js';
import { upstreamFailure } from './upstream-failure.js';

type Schema = Parameters<Awaited<ReturnType<McpToolCallContext['upstream']>>['client']['request']>[1];

function enabledNames(context: McpToolCallContext, type: McpCapabilityType): Set<string> {
  return new Set(context.target.capabilities.filter((item) => item.record.type === type && item.enabled).map((item) => item.record.name));
}

async function forward<T>(context: McpToolCallContext, request: ClientRequest, schema: Schema, signal: AbortSignal): Promise<T> {
  try {
    const upstream = await context.upstream();
    return (await upstream.client.request(request, schema, { signal, timeout: context.call.services.mcpUpstreams.timeoutMs })) as T;
  } catch (error) {
    throw upstreamFailure(context.target.server.slug, error);
  }
}

function refuse(context: McpToolCallContext, what: string, name: string): never {
  throw new McpError(ErrorCode.InvalidParams, `${what} ${name} is not enabled on MCP server ${context.target.server.slug}`);
}

export function buildProxyServer(context: McpToolCallContext): Server {
  const { integration, server: record } = context.target;
  const flags = integration.capability_flags ?? {};
  const server = new Server(
    { name: integration.server_name ?? record.slug, version: integration.server_version ?? '0.0.0' },
    { capabilities: { ...(flags.tools ? { tools: {} } : {}), ...(flags.prompts ? { prompts: {} } : {}), ...(flags.resources ? { resources: {} } : {}) } },
  );

  if (flags.tools) {
    server.setRequestHandler(ListToolsRequestSchema, async (request, extra) => {
      const result = await forward<{ tools: Array<{ name: string }>; nextCursor?: string }>(context, request, ListToolsResultSchema, extra.signal);
      const enabled = enabledNames(context, 'tool');
      return { ...result, tools: result.tools.filter((tool) => enabled.has(tool.name)) };
    });
    server.setRequestHandler(CallToolRequestSchema, (request, extra) => runToolCall(context, request.params, extra.signal));
  }

  if (flags.prompts) {
    server.setRequestHandler(ListPromptsRequestSchema, async (request, extra) => {
      const result = await forward<{ prompts: Array<{ name: string }> }>(context, request, ListPromptsResultSchema, extra.signal);
      const enabled = enabledNames(context, 'prompt');
      return { ...result, prompts: result.prompts.filter((prompt) => enabled.has(prompt.name)) };
    });
    server.setRequestHandler(GetPromptRequestSchema, async (request, extra) => {
      if (!enabledNames(context, 'prompt').has(request.params.name)) refuse(context, 'Prompt', request.params.name);
      return forward(context, request, GetPromptResultSchema, extra.signal);
    });
  }

  if (flags.resources) {
    server.setRequestHandler(ListResourcesRequestSchema, async (request, extra) => {
      const result = await forward<{ resources: Array<{ uri: string }> }>(context, request, ListResourcesResultSchema, extra.signal);
      const enabled = enabledNames(context, 'resource');
      return { ...result, resources: result.resources.filter((resource) => enabled.has(resource.uri)) };
    });
    server.setRequestHandler(ListResourceTemplatesRequestSchema, async (request, extra) => {
      const result = await forward<{ resourceTemplates: Array<{ uriTemplate: string }> }>(context, request, ListResourceTemplatesResultSchema, extra.signal);
      const enabled = enabledNames(context, 'resource_template');
      return { ...result, resourceTemplates: result.resourceTemplates.filter((template) => enabled.has(template.uriTemplate)) };
    });
    server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
      const uri = request.params.uri;
      const templates = [...enabledNames(context, 'resource_template')];
      const allowed = enabledNames(context, 'resource').has(uri) || templates.some((template) => new UriTemplate(template).match(uri) !== null);
      if (!allowed) refuse(context, 'Resource', uri);
      return forward(context, request, ReadResourceResultSchema, extra.signal);
    });
  }
  checkRequestParams(server);
  return server;
}
