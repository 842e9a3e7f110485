/**
 * The container image as an operator runs it (GW_IMAGE, built by `make image-test`): on SQLite
 * with /data on a volume, then as deploy/compose.yaml's gw service on the machine's Postgres and
 * Redis. Each time: /ready within 30 s, a mock_response chat, its log row, a clean stop on SIGTERM
 * and the row still there after a restart. Containers use the host's network (this machine's
 * Docker runs without a bridge).
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import { parse, stringify } from 'yaml';
import { GW_VERSION } from '../../core/version.js';
import { assertLogRowKept, freePort, mockChat, waitForLogRow, waitUntilReady } from './smoke.js';

const image = process.env.GW_IMAGE;
const docker = process.env.GW_DOCKER ?? 'docker';
const ADMIN_KEY = 'gw-image-test-admin-key-0123456789';
const run = randomBytes(4).toString('hex');

function dockerOut(args: string[], env: NodeJS.ProcessEnv = process.env): string {
  return execFileSync(docker, args, { encoding: 'utf8', env, stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

function logsOf(container: string): string {
  const logs = spawnSync(docker, ['logs', container], { encoding: 'utf8' });
  return `${logs.stdout}${logs.stderr}`;
}

function inspect(container: string, format: string): string {
  return dockerOut(['inspect', '--format', format, container]);
}

/** Waits for the image's HEALTHCHECK (on /health) to report healthy; it first runs 10 s after the start. */
async function waitHealthy(container: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  let status = '';
  while (Date.now() < deadline) {
    status = inspect(container, '{{.State.Health.Status}}');
    if (status === 'healthy') return;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  assert.fail(`the container's health check says ${status}`);
}

/**
 * Run by the image's node: the certificates of the build's extra CA file that the image's own
 * bundle lacks, each looked for (a line of its PEM body) in every file of the image's folders.
 */
const FIND_BUILD_CAS = `
const fs = require('node:fs');
const { spawnSync } = require('node:child_process');
const bodies = (pem) => [...pem.matchAll(/-----BEGIN CERTIFICATE-----([\\s\\S]*?)-----END CERTIFICATE-----/g)].map((m) => m[1].replace(/\\s+/g, ''));
const own = new Set(bodies(fs.readFileSync('/etc/ssl/certs/ca-certificates.crt', 'utf8')));
const added = bodies(fs.readFileSync('/tmp/build-extra-ca.pem', 'utf8')).filter((body) => !own.has(body));
if (added.length === 0) { console.log('added certificates found: none'); process.exit(0); }
// The last full 64-character line of each: it lies in the signature, which no other certificate shares.
const lines = added.map((body) => body.slice((Math.floor(body.length / 64) - 1) * 64, Math.floor(body.length / 64) * 64));
const found = spawnSync('grep', ['-rlF', ...lines.flatMap((line) => ['-e', line]), '/etc', '/app', '/root', '/run', '/usr/local/share'], { encoding: 'utf8' });
console.log('added certificates found: ' + (found.stdout.trim() || 'none') + ' (' + added.length + ' looked for)');
`;

describe('the container image', { skip: image ? false : 'GW_IMAGE is not set (make image-test sets it)' }, () => {
  const cleanups: (() => void)[] = [];
  after(() => {
    for (const cleanup of cleanups.reverse()) {
      try {
        cleanup();
      } catch {
        // best effort: the next run uses names of its own
      }
    }
  });

  it('carries its version and source as OCI labels, runs as a non-root user, and holds no build-time CA', () => {
    const labels = JSON.parse(dockerOut(['image', 'inspect', '--format', '{{json .Config.Labels}}', image!])) as Record<string, string>;
    assert.equal(labels['org.opencontainers.image.version'], GW_VERSION);
    assert.ok(labels['org.opencontainers.image.source'] && labels['org.opencontainers.image.source'] !== 'unknown', 'source label');
    assert.match(labels['org.opencontainers.image.revision'] ?? '', /^[0-9a-f]{40}$/);
    assert.equal(dockerOut(['image', 'inspect', '--format', '{{.Config.User}}', image!]), '10001:10001');
    assert.deepEqual(JSON.parse(dockerOut(['image', 'inspect', '--format', '{{json .Config.Volumes}}', image!])), { '/data': {} });
    const env = dockerOut(['image', 'inspect', '--format', '{{json .Config.Env}}', image!]);
    assert.doesNotMatch(env, /NODE_EXTRA_CA_CERTS|npm_config_cafile/i);
    // The build was given the machine's extra CAs (NODE_EXTRA_CA_CERTS) as a secret: none of those
    // the image's own bundle lacks may be anywhere in its /etc, /app, /root, /run or /usr/local/share.
    // One container does it all (each container is a full copy of the image with this Docker's vfs).
    const extra = process.env.NODE_EXTRA_CA_CERTS;
    if (!extra) return;
    const left = dockerOut(['run', '--rm', '--network', 'none', '-v', `${extra}:/tmp/build-extra-ca.pem:ro`, '--entrypoint', 'node', image!, '-e', FIND_BUILD_CAS]);
    assert.match(left, /^added certificates found: none( \(\d+ looked for\))?$/);
  });

  it('on SQLite: ready, answers and logs, drains on SIGTERM, keeps the row on its /data volume in a new container', async () => {
    const volume = `gw-image-test-${run}`;
    dockerOut(['volume', 'create', volume]);
    cleanups.push(() => dockerOut(['volume', 'rm', '-f', volume]));
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    // A read-only root file system with a scratch /tmp, as the Kubernetes manifests run it: gw writes /data only.
    const start = (name: string) => {
      dockerOut(['run', '-d', '--name', name, '--network', 'host', '--read-only', '--tmpfs', '/tmp', '-e', `GW_PORT=${port}`, '-e', `GW_ADMIN_API_KEY=${ADMIN_KEY}`, '-v', `${volume}:/data`, image!]);
      cleanups.push(() => dockerOut(['rm', '-f', name]));
    };

    const first = `gw-image-test-${run}-a`;
    start(first);
    await waitUntilReady(base, () => logsOf(first));
    const traceId = await mockChat(base, ADMIN_KEY);
    await waitForLogRow(base, ADMIN_KEY, traceId);
    await waitHealthy(first);
    assert.equal(dockerOut(['exec', first, 'id', '-u']), '10001');
    // node is PID 1: docker stop's SIGTERM reaches gw, which drains and exits 0 well within the grace.
    dockerOut(['stop', '--time', '45', first]);
    assert.equal(inspect(first, '{{.State.ExitCode}}'), '0', logsOf(first));
    assert.match(logsOf(first), /gw shutting down/);
    dockerOut(['rm', first]);

    const second = `gw-image-test-${run}-b`;
    start(second);
    await waitUntilReady(base, () => logsOf(second));
    await assertLogRowKept(base, ADMIN_KEY, traceId);
    dockerOut(['stop', '--time', '45', second]);
  });

  it("as compose.yaml's gw service on Postgres and Redis: ready, answers and logs, keeps the row across a restart", { skip: process.env.GW_TEST_DATABASE_URL && process.env.GW_TEST_REDIS_URL ? false : 'GW_TEST_DATABASE_URL and GW_TEST_REDIS_URL are not set' }, async () => {
    // A private database, so nothing collides with the test suites sharing this Postgres.
    const database = `gw_image_test_${run}`;
    const admin = new pg.Client({ connectionString: process.env.GW_TEST_DATABASE_URL });
    await admin.connect();
    await admin.query(`create database ${database}`);
    cleanups.push(() => void spawnSync('psql', [process.env.GW_TEST_DATABASE_URL!, '-c', `drop database if exists ${database} with (force)`]));
    await admin.end();
    const databaseUrl = new URL(process.env.GW_TEST_DATABASE_URL!);
    databaseUrl.pathname = `/${database}`;

    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const project = `gw-image-test-${run}`;
    const env = {
      ...process.env,
      GW_IMAGE: image,
      GW_TEST_PORT: String(port),
      GW_TEST_IMAGE_DATABASE_URL: databaseUrl.toString(),
      GW_TEST_REDIS_PREFIX: `gw-image-test-${run}:`,
      GW_ADMIN_API_KEY: ADMIN_KEY,
    };
    // The two files as docker-compose merges them, less gw's published port, which the host's
    // network cannot have (and an override cannot remove).
    const merged = parse(execFileSync('docker-compose', ['-f', 'deploy/compose.yaml', '-f', 'test/deploy/compose.image-test.yaml', 'config'], { encoding: 'utf8', env })) as { services: { gw: { ports?: unknown } } };
    delete merged.services.gw.ports;
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'gw-compose-')), 'compose.yaml');
    writeFileSync(file, stringify(merged, { version: '1.1' })); // docker-compose reads YAML 1.1 (a bare yes is true)
    const compose = (...args: string[]) => execFileSync('docker-compose', ['-p', project, '-f', file, ...args], { encoding: 'utf8', env, stdio: ['ignore', 'pipe', 'pipe'] });
    const composeLogs = () => {
      const logs = spawnSync('docker-compose', ['-p', project, '-f', file, 'logs', '--no-color', 'gw'], { encoding: 'utf8', env });
      return `${logs.stdout}${logs.stderr}`;
    };
    cleanups.push(() => compose('down', '--volumes', '--timeout', '45'));

    // Only gw: Postgres and Redis are the machine's (the override points gw at them).
    compose('up', '-d', '--no-deps', 'gw');
    await waitUntilReady(base, composeLogs);
    const ready = (await (await fetch(`${base}/ready`)).json()) as { checks: Record<string, boolean> };
    assert.deepEqual(ready.checks, { store: true, redis: true, request_log: true }, 'gw runs on Postgres and Redis');
    const traceId = await mockChat(base, ADMIN_KEY);
    await waitForLogRow(base, ADMIN_KEY, traceId);

    compose('restart', '--timeout', '45', 'gw');
    await waitUntilReady(base, composeLogs);
    await assertLogRowKept(base, ADMIN_KEY, traceId);
    assert.match(composeLogs(), /gw shutting down/);
  });
});
