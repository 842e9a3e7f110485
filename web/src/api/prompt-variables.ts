/**
 * The variables a prompt version needs. The template's own top-level names are read here (names
 * inside a section may come from its items, as gw reads them); then gw decides: POST
 * /v1/prompts/{id}/render answers 400 `missing_variable` with param `variables.<name>` for the
 * first one `variables` lacks (a partial's, say), so each such answer names one more until the
 * render passes. Most templates take a single render, and no failed call.
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

const TAG = /\{\{(\{?)\s*([#^/>!&=]?)\s*([^}]*?)\s*\}?\}\}/g;

/** The top-level variable names of a template (a string, or chat messages whose texts are templates), in order. */
export function templateVariables(template: unknown): string[] {
  const texts: string[] = [];
  const collect = (value: unknown) => {
    if (typeof value === 'string') texts.push(value);
    else if (Array.isArray(value)) value.forEach(collect);
    else if (value && typeof value === 'object') {
      const { content, text } = value as { content?: unknown; text?: unknown };
      collect(content);
      collect(text);
    }
  };
  collect(template);
  const names: string[] = [];
  for (const text of texts) {
    let depth = 0;
    for (const [, , kind, name] of text.matchAll(TAG)) {
      if (kind === '#' || kind === '^') depth++;
      else if (kind === '/') depth = Math.max(0, depth - 1);
      else if ((kind === '' || kind === '&') && depth === 0 && name && name !== '.' && !names.includes(name)) names.push(name);
    }
  }
  return names;
}

export async function promptVariables(api: Api, address: string, template: unknown): Promise<string[]> {
  const names = templateVariables(template);
  let variables: Record<string, unknown> = names.reduce((all, name) => setVariable(all, name, ''), {});
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
