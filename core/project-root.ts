import { existsSync } from 'node:fs';
import path from 'node:path';

/** The folder holding package.json, found from this module whether it runs from sources or dist/. */
export function projectRoot(): string {
  let dir = import.meta.dirname;
  while (!existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('gw: cannot find the project root (package.json)');
    dir = parent;
  }
  return dir;
}
