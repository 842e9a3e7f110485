/** The README stays a short front page, and every relative link in it and in docs/ names a file that exists. */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

const root = path.resolve(import.meta.dirname, '../..');
const pages = ['README.md', ...readdirSync(path.join(root, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];

describe('README and docs/', () => {
  it('the README is under 20 KB, with its architecture picture in the repository', () => {
    assert.ok(statSync(path.join(root, 'README.md')).size < 20 * 1024);
    const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
    assert.match(readme, /!\[[^\]]*\]\(docs\/architecture\.svg\)/);
    assert.match(readFileSync(path.join(root, 'docs/architecture.svg'), 'utf8'), /^<svg /);
    assert.doesNotMatch(readFileSync(path.join(root, 'docs/architecture.svg'), 'utf8'), /href="http|xlink:href="http|@import/, 'no external assets');
  });

  it('every relative link resolves, and docs/README.md lists every doc', () => {
    for (const page of pages) {
      const text = readFileSync(path.join(root, page), 'utf8');
      for (const [, target] of text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue;
        assert.ok(existsSync(path.join(root, path.dirname(page), target!)), `${page} links to ${target}, which does not exist`);
      }
    }
    const index = readFileSync(path.join(root, 'docs/README.md'), 'utf8');
    for (const page of pages.filter((p) => p.startsWith('docs/') && p !== 'docs/README.md')) assert.ok(index.includes(`](${path.basename(page)})`), `docs/README.md lists ${page}`);
  });
});
