/**
 * Guardrails on MCP tool calls, mapped per server (PUT /v2/guardrails/{id}/mcp-servers).
 * `beforeToolCall` checks see the tool name and arguments (as JSON text, input phase);
 * `afterToolCall` checks see the result's text (output phase). The existing checks run unchanged.
 * A failed deny guardrail blocks the call with a tool error result naming it; monitor-only ones are
 * logged. A rewrite (PII redaction, say) replaces the arguments when it is still a JSON object, or
 * the result's text.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { CheckSubject } from '../guardrails/check-types.js';
import type { GuardrailDefinition } from '../guardrails/definition.js';
import type { HookResult } from '../guardrails/hook-results.js';
import { runGuardrails } from '../guardrails/run-guardrails.js';
import type { McpRunOn } from '../../store/repositories/mcp-guardrail-servers.js';
import type { McpToolCallContext } from './tool-call-context.js';

export interface ToolGuardOutcome {
  results: HookResult[];
  /** The tool error result the caller gets when a deny guardrail failed. */
  denied?: CallToolResult;
  message?: string;
  /** Arguments as a rewrite left them (beforeToolCall). */
  arguments?: Record<string, unknown>;
  /** The result as a rewrite left it (afterToolCall). */
  result?: CallToolResult;
}

/** The server's guardrail mappings, from memory (mcp-directory.ts). */
const mappingsFor = (context: McpToolCallContext) => context.call.services.mcpDirectory.guardrailMappings(context.target.server.id);

async function guardrailsFor(context: McpToolCallContext, tool: string, runOn: McpRunOn): Promise<GuardrailDefinition[]> {
  const { call, principal, target } = context;
  const mappings = (await mappingsFor(context)).filter(
    (mapping) => mapping.run_on === runOn && (mapping.capability_ids.length === 0 || mapping.capability_ids.includes(tool)),
  );
  const definitions = await Promise.all(mappings.map((mapping) => call.services.guardrails.guardrail(principal.organisationId, target.server.workspace_id, mapping.guardrail_id)));
  return definitions.filter((definition): definition is GuardrailDefinition => definition !== undefined);
}

function headersOf(context: McpToolCallContext): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(context.call.req.headers)) out[name] = Array.isArray(value) ? value.join(', ') : value;
  return out;
}

/** The text of a result, as output checks read it: its text parts, else its structured content as JSON. */
export function resultText(result: CallToolResult): string {
  const texts = (result.content ?? []).flatMap((part) => (part.type === 'text' ? [part.text] : []));
  if (texts.length) return texts.join('\n');
  return result.structuredContent ? JSON.stringify(result.structuredContent) : '';
}

function subject(context: McpToolCallContext, phase: 'input' | 'output', tool: string, text: string): CheckSubject {
  const model = `mcp:${context.target.server.slug}/${tool}`;
  return {
    phase,
    request: { model, messages: [{ role: 'user', content: phase === 'input' ? text : tool }] } as CheckSubject['request'],
    text,
    metadata: context.metadata,
    requestType: 'mcpToolCall',
    headers: headersOf(context),
  };
}

function blocked(denied: HookResult, stage: string): { denied: CallToolResult; message: string } {
  const message = `Blocked by guardrail ${denied.slug ?? denied.id ?? 'unnamed'} (${stage})`;
  return { denied: { content: [{ type: 'text', text: message }], isError: true }, message };
}

async function judge(context: McpToolCallContext, guardrails: GuardrailDefinition[], checked: CheckSubject) {
  const { services } = context.call;
  return runGuardrails(guardrails, checked, { ...services.guardrailOutbound, now: services.now });
}

export async function guardToolCall(context: McpToolCallContext, tool: string, args: Record<string, unknown>): Promise<ToolGuardOutcome> {
  const guardrails = await guardrailsFor(context, tool, 'beforeToolCall');
  if (!guardrails.length) return { results: [] };
  const outcome = await judge(context, guardrails, subject(context, 'input', tool, JSON.stringify(args)));
  if (outcome.denied) return { results: outcome.results, ...blocked(outcome.denied, 'beforeToolCall') };
  return { results: outcome.results, arguments: outcome.text === undefined ? undefined : rewrittenArguments(outcome.text) };
}

function rewrittenArguments(text: string): Record<string, unknown> | undefined {
  try {
    const parsed = JSON.parse(text) as unknown;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

export async function guardToolResult(context: McpToolCallContext, tool: string, result: CallToolResult): Promise<ToolGuardOutcome> {
  const guardrails = await guardrailsFor(context, tool, 'afterToolCall');
  if (!guardrails.length) return { results: [] };
  const outcome = await judge(context, guardrails, subject(context, 'output', tool, resultText(result)));
  if (outcome.denied) return { results: outcome.results, ...blocked(outcome.denied, 'afterToolCall') };
  return { results: outcome.results, result: outcome.text === undefined ? undefined : { ...result, content: [{ type: 'text', text: outcome.text }] } };
}
