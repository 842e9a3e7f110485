/**
 * The code interpreter's sandbox process (forked by code-sandbox.ts, one Python call per process):
 * CPython in WebAssembly (Pyodide), standard library only. Python reaches no network and no host
 * file system: `import js` sees an empty object instead of Node's globals, the network globals are
 * deleted, the process runs with code generation from strings disallowed (so no JS can be built
 * from Python to reach `process` or `import()`), and files live in Pyodide's in-memory FS only.
 */
import Module from 'node:module';
import { loadPyodide } from 'pyodide';

interface RunMessage {
  code: string;
  files: Array<{ name: string; data: string }>;
  maxOutputBytes: number;
  maxFileBytes: number;
}

const DATA_DIR = '/mnt/data';
const MAX_FILES_BACK = 20;

let output = '';
let truncated = false;
function write(text: string, limit: number): void {
  if (output.length + text.length <= limit) output += text;
  else {
    output += text.slice(0, Math.max(0, limit - output.length));
    truncated = true;
  }
}

let limit = 20_000;
const pyodide = await loadPyodide({
  jsglobals: {},
  stdout: (line) => write(`${line}\n`, limit),
  stderr: (line) => write(`${line}\n`, limit),
});
for (const name of ['fetch', 'WebSocket', 'XMLHttpRequest', 'EventSource', 'Request', 'navigator']) Reflect.deleteProperty(globalThis, name);
// Pyodide's loader leaves a `require` for Emscripten that hands out `ws` (its socket emulation
// opens WebSockets with it) and `child_process`: from now on it hands out nothing.
// Emscripten's own `require` loads `ws` on its first socket; no module loads from now on.
const refuseModule = (name: string) => {
  throw new Error(`${name} is not available in the gw sandbox`);
};
(globalThis as { require?: unknown }).require = refuseModule;
(Module as unknown as { _load: unknown })._load = refuseModule;
// Packages would come from a CDN: there is none to reach.
const refuse = () => Promise.reject(new Error('Packages cannot be loaded in the gw sandbox'));
Object.assign(pyodide, { loadPackage: refuse, loadPackagesFromImports: refuse });

type FS = { mkdirTree(path: string): void; writeFile(path: string, data: Uint8Array): void; readFile(path: string): Uint8Array; readdir(path: string): string[]; isDir(mode: number): boolean; stat(path: string): { mode: number } };
const fs = pyodide.FS as FS;

function listFiles(dir: string): string[] {
  const found: string[] = [];
  for (const name of fs.readdir(dir)) {
    if (name === '.' || name === '..') continue;
    const path = `${dir}/${name}`;
    if (fs.isDir(fs.stat(path).mode)) found.push(...listFiles(path));
    else found.push(path);
  }
  return found;
}

async function run(message: RunMessage): Promise<Record<string, unknown>> {
  limit = message.maxOutputBytes;
  fs.mkdirTree(DATA_DIR);
  const given = new Map<string, Buffer>();
  for (const file of message.files) {
    const data = Buffer.from(file.data, 'base64');
    given.set(`${DATA_DIR}/${file.name}`, data);
    fs.writeFile(`${DATA_DIR}/${file.name}`, data);
  }
  let error: string | undefined;
  try {
    const globals = pyodide.globals.get('dict')();
    await pyodide.runPythonAsync(message.code, { globals, filename: '<code>' });
  } catch (caught) {
    error = caught instanceof Error ? caught.message : String(caught);
  }
  const files: Array<{ name: string; data: string }> = [];
  let skipped = 0;
  for (const path of listFiles(DATA_DIR)) {
    const data = Buffer.from(fs.readFile(path));
    const before = given.get(path);
    if (before && before.equals(data)) continue;
    if (files.length >= MAX_FILES_BACK || data.length > message.maxFileBytes) skipped++;
    else files.push({ name: path.slice(DATA_DIR.length + 1), data: data.toString('base64') });
  }
  if (truncated) output += '\n[output truncated]';
  if (skipped) output += `\n[${skipped} written file(s) not kept: more than ${MAX_FILES_BACK} files or over ${message.maxFileBytes} bytes]`;
  return { logs: output, error, files };
}

process.on('message', (message: RunMessage) => {
  void run(message).then((result) => process.send!(result, () => process.exit(0)));
});
// gw gone (its channel closed): a process waiting for a call has nothing left to do.
process.on('disconnect', () => process.exit(0));
process.send!({ ready: true });
