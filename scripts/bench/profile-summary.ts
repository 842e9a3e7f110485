import { readFileSync } from 'node:fs';
import path from 'node:path';

/*
 * Reads a V8 .cpuprofile (node --cpu-prof) and prints where the time went: self time per
 * function and time per file/package, so a bench run ends with its top costs.
 *   node --import tsx scripts/bench/profile-summary.ts <file.cpuprofile> [rows]
 */
interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

function place(url: string): string {
  if (url === '') return '(native)';
  const file = url.replace(/^file:\/\//, '');
  const modules = file.lastIndexOf('node_modules/');
  if (modules >= 0) {
    const parts = file.slice(modules + 'node_modules/'.length).split('/');
    return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
  }
  if (file.startsWith('node:')) return file;
  return path.relative(process.cwd(), file);
}

export function summarise(file: string, rows = 25): string {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  // Stopping the profiler (node:inspector) lands in the profile itself; it is no cost of gw's.
  const profilerItself = (id: number) => {
    for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) if (byId.get(at)!.callFrame.url === 'node:inspector') return true;
    return false;
  };
  const selfMicros = new Map<number, number>();
  profile.samples.forEach((id, index) => {
    if (!profilerItself(id)) selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0));
  });
  const total = [...selfMicros.values()].reduce((sum, value) => sum + value, 0);

  const byFunction = new Map<string, number>();
  const byPlace = new Map<string, number>();
  for (const [id, micros] of selfMicros) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    const where = place(url);
    const key = `${functionName || '(anonymous)'}  ${where}${url ? `:${lineNumber + 1}` : ''}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + micros);
    byPlace.set(where, (byPlace.get(where) ?? 0) + micros);
  }
  // Inclusive time of gw's own functions: what each stage costs with everything it calls.
  const inclusive = new Map<string, number>();
  for (const [id, micros] of selfMicros) {
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) {
      const { functionName, url, lineNumber } = byId.get(at)!.callFrame;
      const where = place(url);
      if (!url || where.startsWith('node:') || !where.includes('/') || where.startsWith('..')) continue;
      const key = `${functionName || '(anonymous)'}  ${where}:${lineNumber + 1}`;
      if (seen.has(key)) continue;
      seen.add(key);
      inclusive.set(key, (inclusive.get(key) ?? 0) + micros);
    }
  }
  const top = (map: Map<string, number>) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, rows)
      .map(([key, micros]) => `  ${((100 * micros) / total).toFixed(1).padStart(5)}%  ${key}`)
      .join('\n');
  return `self time by file or package:\n${top(byPlace)}\n\nself time by function:\n${top(byFunction)}\n\ninclusive time of gw's own functions:\n${top(inclusive)}\n`;
}

interface AllocationNode {
  callFrame: ProfileNode['callFrame'];
  selfSize: number;
  children: AllocationNode[];
}

/** Reads a sampled allocation profile (HeapProfiler.stopSampling) and prints bytes allocated per function, with its caller. */
export function summariseAllocations(file: string, rows = 25): string {
  const { head } = JSON.parse(readFileSync(file, 'utf8')) as { head: AllocationNode };
  const bytes = new Map<string, number>();
  const name = (frame: ProfileNode['callFrame']) => `${frame.functionName || '(anonymous)'} ${place(frame.url)}${frame.url ? `:${frame.lineNumber + 1}` : ''}`;
  const walk = (node: AllocationNode, parent: AllocationNode | undefined) => {
    if (node.selfSize > 0) {
      const key = `${name(node.callFrame)}  <  ${parent ? name(parent.callFrame) : '(root)'}`;
      bytes.set(key, (bytes.get(key) ?? 0) + node.selfSize);
    }
    for (const child of node.children) walk(child, node);
  };
  walk(head, undefined);
  const total = [...bytes.values()].reduce((sum, value) => sum + value, 0);
  const top = [...bytes.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, rows)
    .map(([key, size]) => `  ${((100 * size) / total).toFixed(1).padStart(5)}%  ${key}`)
    .join('\n');
  return `sampled allocations by function (and caller):\n${top}\n`;
}

if (process.argv[1] && import.meta.url.endsWith(path.basename(process.argv[1]))) {
  const file = process.argv[2]!;
  const rows = Number(process.argv[3] ?? 25);
  console.log(file.endsWith('.heapprofile') ? summariseAllocations(file, rows) : summarise(file, rows));
}
