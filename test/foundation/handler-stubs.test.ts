/**
 * `make generate` writes a 501 stub for each new operationId, in the room that holds its area
 * (or a new room, registered), and `make check` fails while a stub remains.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { filesWithStubs, writeHandlerStubs } from '../../scripts/handler-stubs.js';
import { notImplemented } from '../../handlers/not-implemented.js';
import { ApiError } from '../../core/errors.js';

const root = path.resolve(import.meta.dirname, '../..');

describe('handler stubs from make generate', () => {
  let dir: string;
  let layout: { pathsDir: string; handlersDir: string };
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'gw-stubs-'));
    cpSync(path.join(root, 'spec'), path.join(dir, 'spec'), { recursive: true });
    cpSync(path.join(root, 'handlers'), path.join(dir, 'handlers'), { recursive: true });
    layout = { pathsDir: path.join(dir, 'spec/paths'), handlersDir: path.join(dir, 'handlers') };
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('the current spec needs no stub', () => {
    assert.deepEqual(writeHandlerStubs(layout).written, {});
    assert.deepEqual(filesWithStubs(layout.handlersDir), []);
  });

  it('a new operation in an existing area goes into that area\'s module; a new area gets a registered room', () => {
    const configs = path.join(layout.pathsDir, 'configs.yaml');
    writeFileSync(configs, readFileSync(configs, 'utf8') + `archive:\n  post:\n    operationId: archiveConfig\n    responses:\n      '200':\n        description: ok\n`);
    writeFileSync(path.join(layout.pathsDir, 'widgets.yaml'), `collection:\n  get:\n    operationId: listWidgets\n    responses:\n      '200':\n        description: ok\n  post:\n    operationId: createWidget\n    responses:\n      '201':\n        description: ok\n`);

    const { written } = writeHandlerStubs(layout);
    assert.deepEqual(written, { archiveConfig: 'configs/index.ts', listWidgets: 'widgets/index.ts', createWidget: 'widgets/index.ts' });

    const configsModule = readFileSync(path.join(layout.handlersDir, 'configs/index.ts'), 'utf8');
    assert.match(configsModule, /export const archiveConfig: Handler = notImplemented\('archiveConfig'\);/);
    assert.match(configsModule, /import \{ notImplemented \} from '\.\.\/not-implemented\.js';/);
    const widgets = readFileSync(path.join(layout.handlersDir, 'widgets/index.ts'), 'utf8');
    assert.match(widgets, /import type \{ Handler \} from '\.\.\/types\.js';/);
    assert.match(widgets, /export const createWidget: Handler = notImplemented\('createWidget'\);/);
    const index = readFileSync(path.join(layout.handlersDir, 'index.ts'), 'utf8');
    assert.match(index, /import \* as widgets from '\.\/widgets\/index\.js';/);
    assert.match(index, /\.\.\.widgets,\n\};/);

    assert.deepEqual(writeHandlerStubs(layout).written, {}, 'a second run writes nothing twice');
    assert.deepEqual(filesWithStubs(layout.handlersDir).map((file) => path.relative(layout.handlersDir, file)).sort(), ['configs/index.ts', 'widgets/index.ts']);
  });

  it('a new operation in a room whose operations live in sub-modules is stubbed where the handlers map reads it, and answers 501', async () => {
    // A tree beside the real one: its own spec and handlers, the other rooms linked, so its handlers map can be imported.
    const tree = mkdtempSync(path.join(tmpdir(), 'gw-stub-tree-'));
    try {
      for (const room of ['core', 'gateway', 'server', 'store', 'jobs', 'generated', 'scripts', 'node_modules', 'package.json']) symlinkSync(path.join(root, room), path.join(tree, room));
      cpSync(path.join(root, 'spec'), path.join(tree, 'spec'), { recursive: true });
      cpSync(path.join(root, 'handlers'), path.join(tree, 'handlers'), { recursive: true });
      const added = { assistants: 'archiveAssistant', identity: 'listSsoDomains', 'scim-admin': 'exportScimMappings' };
      for (const [area, operationId] of Object.entries(added)) {
        const file = path.join(tree, 'spec/paths', `${area}.yaml`);
        writeFileSync(file, readFileSync(file, 'utf8') + `new-${area}:\n  post:\n    operationId: ${operationId}\n    responses:\n      '200':\n        description: ok\n`);
      }
      const { written } = writeHandlerStubs({ pathsDir: path.join(tree, 'spec/paths'), handlersDir: path.join(tree, 'handlers') });
      assert.deepEqual(written, { archiveAssistant: 'assistants/index.ts', listSsoDomains: 'auth/index.ts', exportScimMappings: 'scim/index.ts' });
      const { handlers } = (await import(pathToFileURL(path.join(tree, 'handlers/index.ts')).href)) as { handlers: Record<string, (...args: never[]) => Promise<unknown>> };
      for (const operationId of Object.values(added)) {
        assert.equal(typeof handlers[operationId], 'function', `${operationId} is in the handlers map`);
        await assert.rejects(handlers[operationId]!({} as never, {} as never), (error: unknown) => error instanceof ApiError && error.status === 501);
      }
    } finally {
      rmSync(tree, { recursive: true, force: true });
    }
  });

  it('the check that make check runs fails while a stub remains, and passes on the real tree', () => {
    const check = (handlersDir: string) => spawnSync(process.execPath, ['--import', 'tsx', path.join(root, 'scripts/handler-stubs.ts'), '--check', handlersDir], { encoding: 'utf8' });
    const failing = check(layout.handlersDir);
    assert.equal(failing.status, 1);
    assert.match(failing.stderr, /handler stubs remain/);
    assert.equal(check(path.join(root, 'handlers')).status, 0);
  });

  it('a stub answers 501 in the error body', async () => {
    await assert.rejects(notImplemented('archiveConfig')({} as never, {} as never), (error: unknown) => {
      assert.ok(error instanceof ApiError);
      assert.equal(error.status, 501);
      assert.equal(error.code, 'not_implemented');
      return true;
    });
  });
});
