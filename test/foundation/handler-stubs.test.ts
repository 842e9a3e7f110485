/**
 * `make generate` writes a 501 stub for each new operationId, in the room that holds its area
 * (or a new room, registered), and `make check` fails while a stub remains.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { filesWithStubs, writeHandlerStubs } from '../../scripts/handler-stubs.js';
import { notImplemented } from '../../handlers/not-implemented.js';
import { ApiError } from '../../server/errors.js';

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
