import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { availableParallelism } from 'node:os';
import { availableCores, ConfigError, loadConfig } from '../../core/config.js';

function withDataDir<T>(run: (dir: string) => T): T {
  const dir = mkdtempSync(path.join(tmpdir(), 'gw-config-'));
  try {
    return run(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('configuration from the environment', () => {
  test('defaults: port 8787, SQLite in the data dir, pool 12, in-memory counters', () => {
    withDataDir((dir) => {
      const config = loadConfig({ GW_DATA_DIR: dir });
      assert.equal(config.port, 8787);
      assert.equal(config.databaseUrl, undefined);
      assert.equal(config.redisUrl, undefined);
      assert.equal(config.dbPoolSize, 12);
      assert.equal(config.requestTimeoutMs, 300_000);
      assert.equal(config.blockInlineConfig, false);
      assert.equal(config.shutdownGraceMs, 5000);
      // Background work is held by heartbeat: a short lease, so a dead instance's work moves on within seconds.
      assert.equal(config.jobs.leaseMs, 15_000);
      assert.equal(config.runLeaseMs, 15_000);
      assert.equal(loadConfig({ GW_DATA_DIR: dir, GW_JOBS_LEASE_SECONDS: '4' }).runLeaseMs, 4000, 'runs follow the jobs lease unless GW_RUN_LEASE_SECONDS is set');
      assert.equal(loadConfig({ GW_DATA_DIR: dir, GW_JOBS_LEASE_SECONDS: '4', GW_RUN_LEASE_SECONDS: '9' }).runLeaseMs, 9000);
      assert.equal(loadConfig({ GW_DATA_DIR: dir, GW_SHUTDOWN_GRACE_MS: '0' }).shutdownGraceMs, 0);
      assert.ok(Object.isFrozen(config));
    });
  });

  test('GW_WORKERS: a number, or auto (the cores, capped by a cgroup CPU quota); unset is 1', () => {
    withDataDir((dir) => {
      assert.equal(loadConfig({ GW_DATA_DIR: dir }).workers, 1);
      assert.equal(loadConfig({ GW_DATA_DIR: dir, GW_WORKERS: '3' }).workers, 3);
      assert.equal(loadConfig({ GW_DATA_DIR: dir, GW_WORKERS: 'auto' }).workers, availableCores());
      assert.equal(loadConfig({ GW_DATA_DIR: dir, GW_DATABASE_URL: 'postgres://db/gw' }).workers, 1);
      assert.throws(() => loadConfig({ GW_DATA_DIR: dir, GW_WORKERS: '0' }), ConfigError);
      assert.throws(() => loadConfig({ GW_DATA_DIR: dir, GW_WORKERS: 'many' }), /GW_WORKERS/);
      const cpuMax = path.join(dir, 'cpu.max'); // cgroup v2
      writeFileSync(cpuMax, '150000 100000\n'); // a container given 1.5 CPUs: one worker
      assert.equal(availableCores(dir), 1);
      writeFileSync(cpuMax, `${(availableParallelism() + 4) * 100000} 100000\n`); // a quota above the machine: the machine's cores
      assert.equal(availableCores(dir), availableParallelism());
      writeFileSync(cpuMax, 'max 100000\n');
      assert.equal(availableCores(dir), availableParallelism());
      const v1 = mkdtempSync(path.join(dir, 'v1-')); // cgroup v1: cpu/cpu.cfs_quota_us over cpu.cfs_period_us
      mkdirSync(path.join(v1, 'cpu'));
      writeFileSync(path.join(v1, 'cpu/cpu.cfs_period_us'), '100000\n');
      writeFileSync(path.join(v1, 'cpu/cpu.cfs_quota_us'), '100000\n');
      assert.equal(availableCores(v1), 1);
      writeFileSync(path.join(v1, 'cpu/cpu.cfs_quota_us'), '-1\n');
      assert.equal(availableCores(v1), availableParallelism());
      assert.equal(availableCores(path.join(dir, 'absent')), availableParallelism()); // neither
    });
  });

  test('lists are parsed, trimmed and lower-cased', () => {
    withDataDir((dir) => {
      const config = loadConfig({ GW_DATA_DIR: dir, TRUSTED_CUSTOM_HOSTS: ' Llm.Internal , 10.0.0.5', ORGANISATION_HEADERS_TO_MASK: 'X-Secret' });
      assert.deepEqual(config.trustedCustomHosts, ['llm.internal', '10.0.0.5']);
      assert.deepEqual(config.headersToMask, ['x-secret']);
      assert.equal(config.rollupMetadataKeys, undefined, 'unset: the stored list is left alone');
      assert.deepEqual(loadConfig({ GW_DATA_DIR: dir, GW_ROLLUP_METADATA_KEYS: ' env, Team.Name ,env' }).rollupMetadataKeys, ['env', 'Team.Name']);
      assert.throws(() => loadConfig({ GW_DATA_DIR: dir, GW_ROLLUP_METADATA_KEYS: 'env,_user' }), /GW_ROLLUP_METADATA_KEYS/);
    });
  });

  test('the encryption key is generated once into the data dir and reused', () => {
    withDataDir((dir) => {
      const first = loadConfig({ GW_DATA_DIR: dir });
      assert.ok(existsSync(path.join(dir, 'encryption.key')));
      const second = loadConfig({ GW_DATA_DIR: dir });
      assert.deepEqual(second.encryptionKey, first.encryptionKey);
      assert.equal(readFileSync(path.join(dir, 'encryption.key'), 'utf8').trim(), first.encryptionKey.toString('hex'));
    });
  });

  test('bad values stop the start with a message naming the variable', () => {
    withDataDir((dir) => {
      const cases: Array<[Record<string, string>, RegExp]> = [
        [{ GW_PORT: 'eighty' }, /GW_PORT/],
        [{ DB_POOL_SIZE: '0' }, /DB_POOL_SIZE/],
        [{ REQUEST_TIMEOUT: '-5' }, /REQUEST_TIMEOUT/],
        [{ GW_DATABASE_URL: 'mysql://x' }, /GW_DATABASE_URL/],
        [{ GW_REDIS_URL: 'not a url' }, /GW_REDIS_URL/],
        [{ BLOCK_INLINE_CONFIG: 'maybe' }, /BLOCK_INLINE_CONFIG/],
        [{ GW_ENCRYPTION_KEY: 'abcd' }, /GW_ENCRYPTION_KEY/],
        [{ GW_ADMIN_API_KEY: 'short' }, /GW_ADMIN_API_KEY/],
        [{ GW_SHUTDOWN_GRACE_MS: '-1' }, /GW_SHUTDOWN_GRACE_MS/],
      ];
      for (const [env, message] of cases) {
        assert.throws(() => loadConfig({ GW_DATA_DIR: dir, ...env }), (error: unknown) => error instanceof ConfigError && message.test(error.message));
      }
    });
  });
});
