import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Document } from 'openapi-backend';
import { projectRoot } from './project-root.js';

let cachedText: string | undefined;
let cachedSpec: Document | undefined;

/** The bundled spec from generated/ as written by `make generate` (served at /openapi.json). */
export function specText(): string {
  cachedText ??= readFileSync(path.join(projectRoot(), 'generated/openapi.json'), 'utf8');
  return cachedText;
}

/** The bundled spec, parsed; a fresh copy each call, since openapi-backend rewrites what it is given. */
export function loadSpec(): Document {
  cachedSpec ??= JSON.parse(specText()) as Document;
  return structuredClone(cachedSpec);
}
