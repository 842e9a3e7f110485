/**
 * Handler stubs for new operations. `make generate` calls `writeHandlerStubs`: every operationId
 * in spec/paths/<area>.yaml that no handlers/ module exports gets a stub answering 501 (the
 * error body, code not_implemented), in the registered module that holds that area's operations
 * (a room's index.ts when they live in sub-modules it re-exports), or in a new
 * handlers/<area>/index.ts registered in handlers/index.ts. Each stub carries the
 * STUB_MARK; `make check` runs this file with --check and fails while any remains, so a stub
 * never lands.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const STUB_MARK = 'gw:handler-stub';

export interface Layout {
  /** spec/paths */
  pathsDir: string;
  /** handlers/ */
  handlersDir: string;
}

export interface StubReport {
  /** operationId -> the file (relative to handlers/) its stub went into. */
  written: Record<string, string>;
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return tsFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** Names a module exports (const, function, or `export { a, b }`). */
function exportsOf(source: string): string[] {
  const names = [...source.matchAll(/^export\s+(?:const|let|async\s+function|function)\s+([A-Za-z0-9_$]+)/gm)].map((m) => m[1]!);
  for (const block of source.matchAll(/^export\s*\{([^}]*)\}/gm)) {
    for (const part of block[1]!.split(',')) {
      const name = part.trim().split(/\s+as\s+/).pop();
      if (name) names.push(name);
    }
  }
  return names;
}

/** operationIds per spec/paths file, in file order. */
function operationsByArea(pathsDir: string): Map<string, string[]> {
  const areas = new Map<string, string[]>();
  for (const file of readdirSync(pathsDir).filter((name) => name.endsWith('.yaml')).sort()) {
    const ids = [...readFileSync(path.join(pathsDir, file), 'utf8').matchAll(/^\s+operationId:\s*['"]?([A-Za-z0-9_]+)['"]?\s*$/gm)].map((m) => m[1]!);
    areas.set(file.replace(/\.yaml$/, ''), ids);
  }
  return areas;
}

function camel(area: string): string {
  return area.replace(/-([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
}

function stubSource(operationId: string): string {
  return `\n// ${STUB_MARK}: written by \`make generate\`; answers 501 until implemented (\`make check\` fails while it remains).\nexport const ${operationId}: Handler = notImplemented('${operationId}');\n`;
}

/** Adds an import line after the module's last import, unless the name is already imported. */
function withImport(source: string, name: string, line: string): string {
  if (new RegExp(`\\b${name}\\b[^;]*\\bfrom\\b`).test(source.split('\n').filter((l) => l.startsWith('import')).join('\n'))) return source;
  const imports = [...source.matchAll(/^import[^;]*;\s*$/gm)];
  const last = imports.at(-1);
  if (!last) return `${line}\n${source}`;
  const end = last.index! + last[0].length;
  return `${source.slice(0, end)}\n${line}${source.slice(end)}`;
}

function relativeImport(fromFile: string, handlersDir: string, module: string): string {
  const relative = path.relative(path.dirname(fromFile), path.join(handlersDir, module)).split(path.sep).join('/');
  return relative.startsWith('.') ? relative : `./${relative}`;
}

function appendStubs(file: string, handlersDir: string, operationIds: string[]): void {
  let source = existsSync(file) ? readFileSync(file, 'utf8') : '';
  source = withImport(source, 'notImplemented', `import { notImplemented } from '${relativeImport(file, handlersDir, 'not-implemented.js')}';`);
  source = withImport(source, 'Handler', `import type { Handler } from '${relativeImport(file, handlersDir, 'types.js')}';`);
  for (const id of operationIds) source += stubSource(id);
  writeFileSync(file, source);
}

/** Registers a new room in handlers/index.ts: its import and its spread into the handlers map. */
function register(indexFile: string, area: string): void {
  const name = camel(area);
  let source = readFileSync(indexFile, 'utf8');
  if (source.includes(`'./${area}/index.js'`)) return;
  source = withImport(source, name, `import * as ${name} from './${area}/index.js';`);
  const close = source.lastIndexOf('};');
  if (close === -1) throw new Error(`${indexFile}: no handlers map to register ${area} in`);
  source = `${source.slice(0, close)}  ...${name},\n${source.slice(close)}`;
  writeFileSync(indexFile, source);
}

/** The modules handlers/index.ts spreads into the handlers map (`import * as x from './…'`). */
function registeredModules(handlersDir: string): Set<string> {
  const source = readFileSync(path.join(handlersDir, 'index.ts'), 'utf8');
  const files = [...source.matchAll(/^import \* as [A-Za-z0-9_$]+ from '(\.[^']+)\.js';/gm)].map((m) => path.join(handlersDir, `${m[1]!}.ts`));
  return new Set(files);
}

/**
 * A stub must land in a module the handlers map spreads: an operation defined in a sub-module
 * that its room's index.ts re-exports by name would otherwise be written where nothing reads it.
 */
function registeredHome(file: string, handlersDir: string, registered: Set<string>): string {
  if (registered.has(file)) return file;
  const room = path.relative(handlersDir, file).split(path.sep)[0]!;
  const index = path.join(handlersDir, room, 'index.ts');
  if (registered.has(index)) return index;
  throw new Error(`${file}: neither it nor its room's index.ts is registered in handlers/index.ts; register it, then run make generate again`);
}

export function writeHandlerStubs(layout: Layout): StubReport {
  const registered = registeredModules(layout.handlersDir);
  const modules = tsFiles(layout.handlersDir).filter((file) => !file.endsWith('.test.ts'));
  const exported = new Map<string, string>();
  for (const file of modules) for (const name of exportsOf(readFileSync(file, 'utf8'))) exported.set(name, file);

  const written: Record<string, string> = {};
  for (const [area, ids] of operationsByArea(layout.pathsDir)) {
    const missing = ids.filter((id) => !exported.has(id));
    if (!missing.length) continue;
    // The module holding most of this area's operations is its room; a new area gets handlers/<area>/index.ts.
    const homes = new Map<string, number>();
    for (const id of ids) {
      const home = exported.get(id);
      if (home) homes.set(home, (homes.get(home) ?? 0) + 1);
    }
    const home = [...homes].sort((a, b) => b[1] - a[1])[0]?.[0];
    let target = home === undefined ? undefined : registeredHome(home, layout.handlersDir, registered);
    if (!target) {
      mkdirSync(path.join(layout.handlersDir, area), { recursive: true });
      target = path.join(layout.handlersDir, area, 'index.ts');
      register(path.join(layout.handlersDir, 'index.ts'), area);
    }
    appendStubs(target, layout.handlersDir, missing);
    for (const id of missing) written[id] = path.relative(layout.handlersDir, target).split(path.sep).join('/');
  }
  return { written };
}

/** Files under handlers/ that still hold a stub. */
export function filesWithStubs(handlersDir: string): string[] {
  return tsFiles(handlersDir).filter((file) => !file.endsWith('not-implemented.ts') && readFileSync(file, 'utf8').includes(STUB_MARK));
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename) && process.argv.includes('--check')) {
  const handlersDir = path.resolve(process.argv[process.argv.indexOf('--check') + 1] ?? path.join(import.meta.dirname, '../handlers'));
  const stubs = filesWithStubs(handlersDir);
  if (stubs.length) {
    console.error(`handler stubs remain (they answer 501): fill them in before committing:\n${stubs.map((file) => `  ${path.relative(process.cwd(), file)}`).join('\n')}`);
    process.exit(1);
  }
}
