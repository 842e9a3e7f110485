/** Runs the adapter contract (contract.ts) for every adapter that has a fixture folder. */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { test } from 'node:test';
import { adapterFor, providerNames } from '../../gateway/providers/index.js';
import { fixturesDir, runAdapterContract } from './contract.js';

const names = readdirSync(fixturesDir(), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

test('every fixture folder names a registered adapter', () => {
  for (const name of names) assert.ok(adapterFor(name), `test/fixtures/providers/${name} has no adapter in gateway/providers/index.ts`);
});

test('every registered adapter has a fixture folder, so every adapter runs the contract', () => {
  for (const name of providerNames()) assert.ok(names.includes(name), `gateway/providers/index.ts registers ${name} but test/fixtures/providers/${name} does not exist`);
});

for (const name of names) {
  const adapter = adapterFor(name);
  if (adapter) runAdapterContract(adapter);
}
