/**
 * The browsable API reference at /reference: one HTML page rendered from the bundled spec, with
 * its styles inline and no script or font from anywhere else, so it works offline and behind any
 * firewall. Operations are grouped by tag, each with its scope, parameters, body and responses;
 * schemas are shown as their JSON Schema, collapsed, with `$ref`s as links to the schema section.
 */
import type { Document } from 'openapi-backend';

type Json = Record<string, unknown>;

const METHODS = ['get', 'head', 'post', 'put', 'patch', 'delete'] as const;

const STYLE = `
body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1d2330;display:flex}
nav{width:260px;height:100vh;overflow:auto;position:sticky;top:0;background:#f4f5f7;padding:16px;box-sizing:border-box;font-size:13px}
nav a{display:block;color:#1d2330;text-decoration:none;padding:1px 0}nav h2{font-size:13px;margin:14px 0 4px;text-transform:uppercase;color:#667}
main{flex:1;padding:24px 40px;max-width:1000px}h1{margin-top:0}section.op{border-top:1px solid #dde;padding:12px 0}
.m{display:inline-block;min-width:58px;font:bold 12px monospace;color:#fff;border-radius:3px;padding:2px 6px;text-align:center;margin-right:8px}
.get{background:#2f7d32}.post{background:#1565c0}.put{background:#8e24aa}.patch{background:#ef6c00}.delete{background:#c62828}
code,pre{font-family:ui-monospace,monospace;font-size:13px}pre{background:#f6f8fa;padding:10px;overflow:auto;max-height:480px}
table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #dde;padding:4px 8px;text-align:left;vertical-align:top}
.tag{color:#667;font-size:13px}details summary{cursor:pointer;color:#1565c0}`;

function escape(text: unknown): string {
  return String(text ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function anchor(text: string): string {
  return text.replace(/[^A-Za-z0-9_-]+/g, '-');
}

/** A schema as indented JSON, with `$ref` values turned into links to their section. */
function schemaBlock(schema: unknown): string {
  const json = escape(JSON.stringify(schema, null, 2));
  return `<pre>${json.replace(/&#34;#\/components\/schemas\/([A-Za-z0-9_.-]+)&#34;/g, (_m, name: string) => `<a href="#schema-${anchor(name)}">#/components/schemas/${escape(name)}</a>`)}</pre>`;
}

function parametersTable(parameters: Json[]): string {
  if (!parameters.length) return '';
  const rows = parameters
    .map((p) => `<tr><td><code>${escape(p.name)}</code>${p.required ? ' *' : ''}</td><td>${escape(p.in)}</td><td>${escape((p.schema as Json | undefined)?.type ?? '')}</td><td>${escape(p.description ?? '')}</td></tr>`)
    .join('');
  return `<table><tr><th>name</th><th>in</th><th>type</th><th>description</th></tr>${rows}</table>`;
}

function resolveRef(spec: Document, node: unknown): Json {
  const ref = (node as Json | undefined)?.$ref;
  if (typeof ref !== 'string' || !ref.startsWith('#/')) return (node ?? {}) as Json;
  return ref
    .slice(2)
    .split('/')
    .reduce<unknown>((at, key) => (at as Json | undefined)?.[key], spec) as Json;
}

function operationSection(spec: Document, path: string, method: string, op: Json): string {
  const id = String(op.operationId);
  const parameters = ((op.parameters ?? []) as unknown[]).map((p) => resolveRef(spec, p));
  const body = resolveRef(spec, op.requestBody) as { content?: Record<string, { schema?: unknown }> };
  const bodyHtml = body.content
    ? Object.entries(body.content)
        .map(([type, media]) => `<details><summary>Request body (${escape(type)})</summary>${schemaBlock(media.schema)}</details>`)
        .join('')
    : '';
  const responses = Object.entries((op.responses ?? {}) as Record<string, unknown>)
    .map(([status, raw]) => {
      const response = resolveRef(spec, raw) as { description?: string; content?: Record<string, { schema?: unknown }> };
      const content = Object.entries(response.content ?? {})
        .map(([type, media]) => `<details><summary>${escape(type)}</summary>${schemaBlock(media.schema)}</details>`)
        .join('');
      return `<tr><td>${escape(status)}</td><td>${escape(response.description ?? '')}${content}</td></tr>`;
    })
    .join('');
  const security = (op.security as Json[] | undefined)?.length ? Object.keys(Object.assign({}, ...(op.security as Json[]))).join(' or ') : 'none';
  const scope = op['x-gw-scope'] ? ` &middot; scope <code>${escape(op['x-gw-scope'])}</code>` : '';
  return `<section class="op" id="op-${anchor(id)}">
<h3><span class="m ${method}">${method.toUpperCase()}</span><code>${escape(path)}</code></h3>
<p>${escape(op.summary ?? '')}</p>${op.description ? `<p>${escape(op.description)}</p>` : ''}
<p class="tag"><code>${escape(id)}</code> &middot; auth: ${escape(security)}${scope}</p>
${parametersTable(parameters)}${bodyHtml}<table><tr><th>status</th><th>response</th></tr>${responses}</table></section>`;
}

export function renderReferencePage(spec: Document): string {
  const info = spec.info as { title?: string; version?: string; description?: string };
  const byTag = new Map<string, string[]>();
  const nav = new Map<string, string[]>();
  for (const [path, item] of Object.entries((spec.paths ?? {}) as Record<string, Json>)) {
    for (const method of METHODS) {
      const op = item[method] as Json | undefined;
      if (!op) continue;
      const tag = ((op.tags as string[] | undefined) ?? ['Other'])[0]!;
      if (!byTag.has(tag)) {
        byTag.set(tag, []);
        nav.set(tag, []);
      }
      byTag.get(tag)!.push(operationSection(spec, path, method, op));
      nav.get(tag)!.push(`<a href="#op-${anchor(String(op.operationId))}">${method.toUpperCase()} ${escape(path)}</a>`);
    }
  }
  const schemas = Object.entries((spec.components?.schemas ?? {}) as Record<string, unknown>)
    .map(([name, schema]) => `<section id="schema-${anchor(name)}"><h3>${escape(name)}</h3><details><summary>JSON Schema</summary>${schemaBlock(schema)}</details></section>`)
    .join('');
  const navHtml = [...nav].map(([tag, links]) => `<h2>${escape(tag)}</h2>${links.join('')}`).join('') + '<h2>Schemas</h2><a href="#schemas">All schemas</a>';
  const body = [...byTag].map(([tag, sections]) => `<h2 id="tag-${anchor(tag)}">${escape(tag)}</h2>${sections.join('')}`).join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escape(info.title)} ${escape(info.version)} API reference</title><style>${STYLE}</style></head>
<body><nav><strong>${escape(info.title)} ${escape(info.version)}</strong><br><a href="/openapi.json">openapi.json</a>${navHtml}</nav>
<main><h1>${escape(info.title)} API reference</h1><p>${escape(info.description ?? '')}</p>${body}<h2 id="schemas">Schemas</h2>${schemas}</main></body></html>`;
}
