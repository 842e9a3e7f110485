/**
 * deploy/compose.yaml as docker-compose reads it (`docker-compose config`, which validates the file
 * and resolves it): gw, Postgres and Redis with volumes and health checks, gw started only once
 * both are healthy, the collector behind the otel profile. `make image-test` runs its gw service.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { parse } from 'yaml';

const FILE = 'deploy/compose.yaml';
const installed = spawnSync('docker-compose', ['version'], { encoding: 'utf8' }).status === 0;
// CI must check it (.ci/run installs Debian's docker-compose); elsewhere a machine without it skips.
const skip = installed || process.env.CI ? false : 'docker-compose is not installed (apt-get install docker-compose)';

interface Service {
  image: string;
  profiles?: string[];
  environment?: Record<string, string>;
  volumes?: { source?: string; target: string; type: string }[] | string[];
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string }>;
  stop_grace_period?: string;
}

function config(...args: string[]): { services: Record<string, Service>; volumes: Record<string, unknown> } {
  const env = { ...process.env, GW_ADMIN_API_KEY: 'gw-compose-check-admin-key-01234' };
  return parse(execFileSync('docker-compose', ['-f', FILE, ...args, 'config'], { encoding: 'utf8', env })) as never;
}

describe('docker compose file', { skip }, () => {
  it('is valid, and runs gw on Postgres and Redis, each with a volume and a health check', () => {
    const { services, volumes } = config();
    const always = Object.entries(services).filter(([, service]) => !service.profiles);
    assert.deepEqual(always.map(([name]) => name).sort(), ['gw', 'postgres', 'redis']);
    assert.deepEqual(Object.keys(volumes).sort(), ['gw-data', 'postgres-data', 'redis-data']);
    for (const [name, service] of always) {
      assert.ok(service.healthcheck?.test.length, `${name} has a health check`);
      assert.match(JSON.stringify(service.volumes), new RegExp(`"${name}-data:/`), `${name} keeps its data on a volume`);
    }
    const gw = services.gw!;
    assert.match(JSON.stringify(gw.healthcheck!.test), /\/ready/);
    assert.deepEqual(gw.depends_on, { postgres: { condition: 'service_healthy' }, redis: { condition: 'service_healthy' } });
    assert.equal(gw.environment!.GW_DATABASE_URL, 'postgres://gw:gw-local-only@postgres:5432/gw');
    assert.equal(gw.environment!.GW_REDIS_URL, 'redis://redis:6379');
    assert.equal(gw.environment!.GW_ADMIN_API_KEY, 'gw-compose-check-admin-key-01234');
    // Docker kills gw only after its drain: the grace, requests in flight, then at least 5 s for the log queue.
    const drainSeconds = (Number(gw.environment!.GW_SHUTDOWN_GRACE_MS) + Number(gw.environment!.GW_SHUTDOWN_TIMEOUT_MS)) / 1000 + 5;
    assert.ok(Number.parseInt(gw.stop_grace_period!, 10) > drainSeconds, `stop_grace_period ${gw.stop_grace_period} above ${drainSeconds} s`);
  });

  it('adds the OpenTelemetry collector only with the otel profile, its configuration mounted', () => {
    const collector = config('--profile', 'otel').services['otel-collector']!;
    assert.deepEqual(collector.profiles, ['otel']);
    assert.match(JSON.stringify(collector.volumes), /deploy\/otel-collector\.yaml:\/etc\/otelcol\/config\.yaml:ro/);
  });
});
