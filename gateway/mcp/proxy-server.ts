/**
 * The MCP server gw presents for one upstream server, built with the MCP SDK's Server for one
 * gateway request. It declares the capabilities the upstream declares, as far as gw relays them,
 * and forwards every method of those. Lists are filtered to what is enabled for the server; calls
 * of anything else (tools, prompts, resources, and completions or subscriptions naming them) are
 * refused with a JSON-RPC error and never reach the upstream. Tool calls take the tool-call
 * pipeline (limits, guardrails, log).
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { UriTemplate } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  CompleteResultSchema,
  EmptyResultSchema,
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
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type ClientRequest,
  type ServerCapabilities,
} from '@modelcontextprotocol/sdk/types.js';
import type { McpCapabilityType } from '../../store/repositories/mcp-integrations.js';
import type { ClientFeatureRelays } from './client-features.js';
import type { McpToolCallContext } from './tool-call-context.js';
import { LazySchemaValidator } from './lazy-schema-validator.js';
import { checkRequestParams } from './request-checks.js';
import { callWithClient, runToolCall } from './tool-call.js';
import { upstreamFailure } from './upstream-failure.js';

type Schema = Parameters<Awaited<ReturnType<McpToolCallContext['upstream']>>['client']['request']>[1];
type Extra = { signal: AbortSignal; requestId: string | number };

function enabledNames(context: McpToolCallContext, type: McpCapabilityType): Set<string> {
  return new Set(context.target.capabilities.filter((item) => item.record.type === type && item.enabled).map((item) => item.record.name));
}

async function forward<T>(context: McpToolCallContext, request: ClientRequest, schema: Schema, extra: Extra): Promise<T> {
  const { options, done } = context.requestOptions(request, extra);
  try {
    const upstream = await context.upstream();
    return (await upstream.client.request(request, schema, options)) as T;
  } catch (error) {
    throw upstreamFailure(context.target.server.slug, error);
  } finally {
    done();
  }
}

function refuse(context: McpToolCallContext, what: string, name: string): never {
  throw new McpError(ErrorCode.InvalidParams, `${what} ${name} is not enabled on MCP server ${context.target.server.slug}`);
}

const flagsOf = (value: unknown, names: string[]) =>
  Object.fromEntries(names.filter((name) => (value as Record<string, unknown> | undefined)?.[name] === true).map((name) => [name, true]));

/**
 * The capabilities the upstream declares, as far as gw relays them: tools, prompts and resources
 * (with listChanged and subscribe), logging (unless the server's relay_logging is off) and
 * completions. Others (tasks, experimental) are left out, since gw would not know how to put its policies on them.
 */
export function relayedCapabilities(declared: Record<string, unknown> | null | undefined, relays: Pick<ClientFeatureRelays, 'logging'>): ServerCapabilities {
  const upstream = declared ?? {};
  return {
    ...(upstream.tools ? { tools: flagsOf(upstream.tools, ['listChanged']) } : {}),
    ...(upstream.prompts ? { prompts: flagsOf(upstream.prompts, ['listChanged']) } : {}),
    ...(upstream.resources ? { resources: flagsOf(upstream.resources, ['subscribe', 'listChanged']) } : {}),
    ...(upstream.logging && relays.logging ? { logging: {} } : {}),
    ...(upstream.completions ? { completions: {} } : {}),
  };
}

function resourceAllowed(context: McpToolCallContext, uri: string): boolean {
  const templates = [...enabledNames(context, 'resource_template')];
  return enabledNames(context, 'resource').has(uri) || templates.some((template) => new UriTemplate(template).match(uri) !== null);
}

/**
 * `declared` is what the upstream declared: at initialize, its answer to gw; later, the last sync's.
 */
export function buildProxyServer(context: McpToolCallContext, declared: Record<string, unknown> | null | undefined, instructions?: string): Server {
  const { integration, server: record } = context.target;
  const capabilities = relayedCapabilities(declared, context.link.relays);
  const server = new Server({ name: integration.server_name ?? record.slug, version: integration.server_version ?? '0.0.0' }, { capabilities, instructions, jsonSchemaValidator: new LazySchemaValidator() });

  if (capabilities.tools) {
    server.setRequestHandler(ListToolsRequestSchema, async (request, extra) => {
      const result = await forward<{ tools: Array<{ name: string }>; nextCursor?: string }>(context, request, ListToolsResultSchema, extra);
      const enabled = enabledNames(context, 'tool');
      return { ...result, tools: result.tools.filter((tool) => enabled.has(tool.name)) };
    });
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const { options, done } = context.requestOptions(request, extra);
      try {
        return await runToolCall(context, request.params, callWithClient(context, options));
      } finally {
        done();
      }
    });
  }

  if (capabilities.prompts) {
    server.setRequestHandler(ListPromptsRequestSchema, async (request, extra) => {
      const result = await forward<{ prompts: Array<{ name: string }> }>(context, request, ListPromptsResultSchema, extra);
      const enabled = enabledNames(context, 'prompt');
      return { ...result, prompts: result.prompts.filter((prompt) => enabled.has(prompt.name)) };
    });
    server.setRequestHandler(GetPromptRequestSchema, async (request, extra) => {
      if (!enabledNames(context, 'prompt').has(request.params.name)) refuse(context, 'Prompt', request.params.name);
      return forward(context, request, GetPromptResultSchema, extra);
    });
  }

  if (capabilities.resources) {
    server.setRequestHandler(ListResourcesRequestSchema, async (request, extra) => {
      const result = await forward<{ resources: Array<{ uri: string }> }>(context, request, ListResourcesResultSchema, extra);
      const enabled = enabledNames(context, 'resource');
      return { ...result, resources: result.resources.filter((resource) => enabled.has(resource.uri)) };
    });
    server.setRequestHandler(ListResourceTemplatesRequestSchema, async (request, extra) => {
      const result = await forward<{ resourceTemplates: Array<{ uriTemplate: string }> }>(context, request, ListResourceTemplatesResultSchema, extra);
      const enabled = enabledNames(context, 'resource_template');
      return { ...result, resourceTemplates: result.resourceTemplates.filter((template) => enabled.has(template.uriTemplate)) };
    });
    server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
      if (!resourceAllowed(context, request.params.uri)) refuse(context, 'Resource', request.params.uri);
      return forward(context, request, ReadResourceResultSchema, extra);
    });
    if (capabilities.resources.subscribe) {
      server.setRequestHandler(SubscribeRequestSchema, async (request, extra) => {
        if (!resourceAllowed(context, request.params.uri)) refuse(context, 'Resource', request.params.uri);
        return forward(context, request, EmptyResultSchema, extra);
      });
      server.setRequestHandler(UnsubscribeRequestSchema, (request, extra) => forward(context, request, EmptyResultSchema, extra));
    }
  }

  if (capabilities.logging) server.setRequestHandler(SetLevelRequestSchema, (request, extra) => forward(context, request, EmptyResultSchema, extra));

  if (capabilities.completions) {
    server.setRequestHandler(CompleteRequestSchema, async (request, extra) => {
      const ref = request.params.ref;
      if (ref.type === 'ref/prompt' && !enabledNames(context, 'prompt').has(ref.name)) refuse(context, 'Prompt', ref.name);
      if (ref.type === 'ref/resource' && !enabledNames(context, 'resource_template').has(ref.uri) && !resourceAllowed(context, ref.uri)) refuse(context, 'Resource', ref.uri);
      return forward(context, request, CompleteResultSchema, extra);
    });
  }
  checkRequestParams(server);
  return server;
}
