/**
 * One A2A call through the door, as its stages see it, and what it came to: the request log entry
 * (endpoint `a2a`, provider `a2a:<agent slug>`, model the skill when the call names one, else the
 * method), so A2A calls sit beside model calls in logs and analytics.
 */
import type { Principal } from '../../core/auth/principal.js';
import type { Call } from '../../core/call.js';
import type { RequestLogEntry } from '../../core/request-log.js';
import { unmeteredLogEntry } from '../logs/unmetered-entry.js';
import type { HookResult } from '../guardrails/hook-results.js';
import type { A2aTarget } from './a2a-target.js';
import type { A2aVersion } from './protocol.js';

export interface A2aCall {
  call: Call;
  principal: Principal;
  target: A2aTarget;
  /** x-gw-metadata of the request. */
  metadata: Record<string, string>;
  /** The method as the caller named it, and its 1.0 name. */
  method: string;
  canonical: string;
  callerVersion: A2aVersion;
  agentVersion: A2aVersion;
  /** The skill the call names (`metadata.skill` of the params or the message), if any. */
  skill: string | undefined;
  startedAt: number;
  /** The binding gw speaks to the agent: JSON-RPC when its card offers it, else HTTP+JSON. */
  agentBinding: 'jsonrpc' | 'rest';
  /** Set when the caller used the HTTP+JSON binding (JSON-RPC otherwise). */
  binding?: 'jsonrpc' | 'rest';
}

export interface A2aOutcome {
  status: number;
  request: unknown;
  response?: unknown;
  error?: { code: string; message: string; type: string };
  guardrails: HookResult[];
  taskState?: string;
  taskId?: string;
  contextId?: string;
  firstByteMs?: number;
  /** Events relayed, for streams. */
  events?: number;
}

export function recordA2aCall(context: A2aCall, outcome: A2aOutcome): void {
  context.call.services.requestLogs.record(a2aLogEntry(context, outcome));
}

function a2aLogEntry(context: A2aCall, outcome: A2aOutcome): RequestLogEntry {
  const { call, principal, target } = context;
  const slug = target.integration.slug;
  const stream = outcome.events !== undefined;
  const facts: Record<string, string | undefined> = {
    a2a_agent: slug,
    a2a_method: context.canonical,
    a2a_skill: context.skill,
    a2a_version: context.callerVersion,
    a2a_agent_version: context.agentVersion,
    a2a_task_state: outcome.taskState,
    a2a_task_id: outcome.taskId,
    a2a_context_id: outcome.contextId,
    a2a_events: stream ? String(outcome.events) : undefined,
    a2a_binding: context.binding,
    a2a_agent_binding: context.agentBinding,
  };
  return unmeteredLogEntry(call, principal, {
    endpoint: 'a2a',
    created_at: context.startedAt,
    workspace_id: target.workspaceId,
    provider: `a2a:${slug}`,
    model: context.skill ?? context.canonical,
    status: outcome.status,
    latency_ms: call.services.now() - context.startedAt,
    first_byte_ms: outcome.firstByteMs ?? null,
    stream,
    metadata: { ...context.metadata, ...(Object.fromEntries(Object.entries(facts).filter(([, value]) => value !== undefined)) as Record<string, string>) },
    request_body: outcome.request,
    response_body: outcome.response ?? null,
    error: outcome.error ?? null,
    guardrail_results: outcome.guardrails.length ? outcome.guardrails : null,
  });
}
