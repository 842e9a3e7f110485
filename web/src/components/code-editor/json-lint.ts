/**
 * Where in JSON text a schema error belongs: ajv names the failing value by JSON pointer
 * (`/targets/1/weight`); the Lezer JSON tree maps that pointer to the text range of the value (or of
 * the key, for an unknown key), so the editor can mark the field itself.
 */
import { jsonLanguage } from '@codemirror/lang-json';
import type { Diagnostic } from '@codemirror/lint';
import type { ValidateFunction } from 'ajv';
import { describe } from '../../api/spec-validation';

type SyntaxNode = ReturnType<typeof jsonLanguage.parser.parse>['topNode'];

const VALUE_NODES = new Set(['Object', 'Array', 'String', 'Number', 'True', 'False', 'Null']);

function children(node: SyntaxNode, name?: string): SyntaxNode[] {
  const found: SyntaxNode[] = [];
  for (let child = node.firstChild; child; child = child.nextSibling) if (name ? child.name === name : VALUE_NODES.has(child.name)) found.push(child);
  return found;
}

function unquote(text: string): string {
  try {
    return JSON.parse(text) as string;
  } catch {
    return text;
  }
}

/** The node of the property `key` in an Object node, and its value node. */
function property(node: SyntaxNode, text: string, key: string): { name: SyntaxNode; value: SyntaxNode | undefined } | undefined {
  for (const prop of children(node, 'Property')) {
    const name = prop.getChild('PropertyName');
    if (name && unquote(text.slice(name.from, name.to)) === key) return { name, value: children(prop)[0] };
  }
  return undefined;
}

/** The text range of the value at `pointer`, or of the deepest part of it that exists. */
export function locate(text: string, pointer: string, key?: string): { from: number; to: number } {
  const top = jsonLanguage.parser.parse(text).topNode;
  const first = children(top)[0];
  if (!first) return { from: 0, to: text.length };
  let node: SyntaxNode = first;
  const steps = pointer ? pointer.slice(1).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~')) : [];
  for (const step of steps) {
    const next: SyntaxNode | undefined = node.name === 'Object' ? property(node, text, step)?.value : node.name === 'Array' ? children(node)[Number(step)] : undefined;
    if (!next) break;
    node = next;
  }
  // An unknown key is marked on its name, not on the whole object around it.
  const named = key && node.name === 'Object' ? property(node, text, key)?.name : undefined;
  const target = named ?? node;
  // A multi-line object or array is marked on its first line only, so the marker does not cover the screen.
  const newline = text.indexOf('\n', target.from);
  return { from: target.from, to: newline > target.from && newline < target.to ? newline : target.to };
}

/** The part of the document a wrapped validator sees (`{[wrapKey]: doc}`) is under `/wrapKey`. */
function withinDocument(path: string, wrapKey: string | undefined): string | undefined {
  if (!wrapKey) return path;
  const prefix = `/${wrapKey}`;
  if (path === prefix || path.startsWith(`${prefix}/`)) return path.slice(prefix.length);
  return undefined;
}

/** Where the JSON parser first stopped (the Lezer tree's first error node). */
function syntaxErrorAt(text: string): number {
  let at = text.length;
  jsonLanguage.parser.parse(text).iterate({
    enter: (node) => {
      if (node.type.isError && node.from < at) at = node.from;
      return at === text.length;
    },
  });
  return at;
}

/** Lint markers for JSON text: the syntax error where the parser stopped, else the schema's errors at their fields. */
export function jsonDiagnostics(text: string, validate: ValidateFunction, wrapKey?: string): Diagnostic[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const from = syntaxErrorAt(text);
    return [{ from, to: Math.min(from + 1, text.length), severity: 'error', message: `Not valid JSON: ${(error as Error).message}` }];
  }
  if (validate(wrapKey ? { [wrapKey]: value } : value)) return [];
  const diagnostics: Diagnostic[] = [];
  for (const error of validate.errors ?? []) {
    const path = withinDocument(error.instancePath, wrapKey);
    if (path === undefined) continue;
    const params = error.params as { additionalProperty?: string; unevaluatedProperty?: string };
    const { from, to } = locate(text, path, params.additionalProperty ?? params.unevaluatedProperty);
    diagnostics.push({ from, to, severity: 'error', message: describe({ ...error, instancePath: path }, wrapKey ?? '') });
  }
  return diagnostics;
}
