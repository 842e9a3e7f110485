import type { Handler } from './types.js';

const VERSION = '2.0.0';

export const getHealth: Handler = async () => ({ body: { status: 'ok', version: VERSION } });

export const getReadiness: Handler = async (_c, call) => {
  const { store, redis } = call.services;
  const checks: Record<string, boolean> = {};
  checks.store = await store.ping().then(
    () => true,
    () => false,
  );
  if (redis) {
    checks.redis = await redis.ping().then(
      () => true,
      () => false,
    );
  }
  const ready = Object.values(checks).every(Boolean);
  return { status: ready ? 200 : 503, body: { status: ready ? 'ready' : 'not_ready', checks } };
};
