/**
 * The variables a prompt version needs, as gw itself decides: POST /v1/prompts/{id}/render
 * answers 400 `missing_variable` with param `variables.<name>` for the first one `variables`
 * lacks (its partials included), so each answer names one more until the render passes.
 */
import { ApiFailure, type Api } from './client';
import type { RenderPromptResponse } from './types';

/** Enough for any template a person fills in by hand; past it the rest are left to gw's answer. */
const MOST = 30;

/** `{a: {b: value}}` for the name `a.b` (mustache's dotted names), merged into `into`. */
export function setVariable(into: Record<string, unknown>, name: string, value: unknown): Record<string, unknown> {
  const [head, ...rest] = name.split('.');
  if (!rest.length) return { ...into, [head!]: value };
  const inner = into[head!];
  return { ...into, [head!]: setVariable(inner && typeof inner === 'object' ? (inner as Record<string, unknown>) : {}, rest.join('.'), value) };
}

export async function promptVariables(api: Api, address: string): Promise<string[]> {
  const names: string[] = [];
  let variables: Record<string, unknown> = {};
  for (let round = 0; round < MOST; round++) {
    try {
      await api.send<RenderPromptResponse>('POST', `/v1/prompts/${encodeURIComponent(address)}/render`, { variables });
      return names;
    } catch (failure) {
      const name = failure instanceof ApiFailure && failure.code === 'missing_variable' && failure.param?.startsWith('variables.') ? failure.param.slice('variables.'.length) : undefined;
      if (name === undefined || names.includes(name)) throw failure;
      names.push(name);
      variables = setVariable(variables, name, '');
    }
  }
  return names;
}
