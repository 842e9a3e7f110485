/**
 * A data plane's counters with its control plane unreachable (a closed loopback port): without an
 * allowance every reservation fails closed; with one, a counter grows locally up to that share of
 * its limit and then fails closed; offline reservations settle locally, and resets are refused.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createLogger } from '../../core/logger.js';
import { ControlPlaneCounters } from '../../gateway/deployment/control-plane-counters.js';
import { CounterStoreUnavailable } from '../../gateway/limits/redis-counter-store.js';

const unreachable = (offlineAllowancePercent: number) =>
  new ControlPlaneCounters({ controlPlaneUrl: 'http://127.0.0.1:1', deploymentKey: 'gw-unused-deployment-key', offlineAllowancePercent, logger: createLogger('silent'), now: Date.now });

describe('data-plane limit counters with the control plane unreachable', () => {
  test('no allowance: every reservation fails closed', async () => {
    const counters = unreachable(0);
    await assert.rejects(counters.reserve('limits:u:p:0:org', 1, 100, 60_000), CounterStoreUnavailable);
    await assert.rejects(counters.reserve('limits:u:p:0:org', 1, 100, 60_000), CounterStoreUnavailable);
  });

  test('an allowance of 25%: a limit of 10 admits 2 locally, then fails closed; a settle gives room back locally', async () => {
    const counters = unreachable(25);
    const key = 'limits:u:p:0:org';
    assert.deepEqual(await counters.reserve(key, 1, 10, 60_000), { allowed: true, used: 1 });
    assert.deepEqual(await counters.reserve(key, 1, 10, 60_000), { allowed: true, used: 2 });
    await assert.rejects(counters.reserve(key, 1, 10, 60_000), CounterStoreUnavailable);
    await counters.settle(key, -1);
    assert.deepEqual(await counters.reserve(key, 1, 10, 60_000), { allowed: true, used: 2 });
    // A limit too small for any share (25% of 3 rounds to 0) fails closed at once.
    await assert.rejects(counters.reserve('limits:u:q:0:org', 1, 3, 60_000), CounterStoreUnavailable);
  });

  test('resets are the control plane business', async () => {
    await assert.rejects(unreachable(50).remove(), CounterStoreUnavailable);
  });
});
