/**
 * package.json `engines` says what the dependencies need: the lowest Node of each supported
 * line satisfies every installed package's declared `engines.node`, and the bounds are not lower
 * than some dependency requires.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import semver from 'semver';

const root = path.resolve(import.meta.dirname, '../..');

/**
 * Dev dependencies whose declared engines leave out Node 20 although they run on it: only tests
 * load them, and those tests run on Node 20 in CI, so a break would show there. Never a runtime
 * dependency (checked below).
 */
const TEST_ONLY_ENGINE_EXCEPTIONS = new Set([
  // openai 7 declares node >=22; the suites that import it (grep "from 'openai'" test) pass on Node 20.
  'openai',
]);

const packageName = (id: string) => id.slice(0, id.lastIndexOf('@'));

function installedEngines(dir: string, out: Map<string, string> = new Map()): Map<string, string> {
  for (const name of readdirSync(dir)) {
    if (name.startsWith('.')) continue;
    const full = path.join(dir, name);
    if (name.startsWith('@')) {
      installedEngines(full, out);
      continue;
    }
    const manifest = path.join(full, 'package.json');
    if (!existsSync(manifest)) continue;
    const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string; version?: string; engines?: { node?: unknown } };
    if (typeof pkg.engines?.node === 'string') out.set(`${pkg.name}@${pkg.version}`, pkg.engines.node);
    const nested = path.join(full, 'node_modules');
    if (existsSync(nested)) installedEngines(nested, out);
  }
  return out;
}

describe('engines', () => {
  const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { engines: { node: string }; dependencies?: Record<string, string>; devDependencies?: Record<string, string> };
  const ours = manifest.engines.node;
  const floors = ours.split('||').map((part) => semver.minVersion(part.trim())!.version);
  const engines = installedEngines(path.join(root, 'node_modules'));

  it('the lowest Node of each supported line, and the one running, satisfy every installed package', () => {
    assert.ok(engines.size > 50);
    for (const version of [...floors, process.versions.node]) {
      const refusing = [...engines].filter(([id, range]) => semver.validRange(range) && !semver.satisfies(version, range) && !TEST_ONLY_ENGINE_EXCEPTIONS.has(packageName(id)));
      assert.deepEqual(refusing, [], `Node ${version} is refused by`);
    }
  });

  it('engine exceptions are dev dependencies only, and still needed', () => {
    for (const name of TEST_ONLY_ENGINE_EXCEPTIONS) {
      assert.ok(manifest.devDependencies?.[name] && !manifest.dependencies?.[name], `${name} is a dev dependency only`);
      const declared = [...engines].find(([id]) => packageName(id) === name);
      assert.ok(declared && floors.some((floor) => !semver.satisfies(floor, declared[1])), `${name} refuses none of ${floors.join(', ')}: drop the exception`);
    }
  });

  it('the running Node is within engines', () => {
    assert.ok(semver.satisfies(process.versions.node, ours), `${process.versions.node} is outside ${ours}`);
  });

  it('each line starts where a dependency needs it to: a patch below each floor is refused by some package', () => {
    for (const floor of floors) {
      const below = `${semver.major(floor)}.${semver.minor(floor) - 1}.99`;
      const refusing = [...engines].filter(([, range]) => semver.validRange(range) && !semver.satisfies(below, range));
      assert.ok(refusing.length > 0, `nothing needs more than ${below}: lower the floor ${floor}`);
    }
  });
});
