import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertValidConfig } from '../../gateway/config-schema.js';

const rejectsWith = (config: unknown, param: string) =>
  assert.throws(
    () => assertValidConfig(config),
    (error: { status?: number; param?: string }) => error.status === 400 && error.param === param,
    `expected 400 naming ${param}`,
  );

describe('config validation (spec schema + routing rules)', () => {
  test('a full routing config passes', () => {
    assert.doesNotThrow(() =>
      assertValidConfig({
        strategy: { mode: 'fallback', on_status_codes: [429] },
        retry: { attempts: 3, use_retry_after_header: true, max_retry_wait_ms: 2000 },
        cache: { mode: 'semantic', max_age: 60, similarity_threshold: 0.9, embedding: { provider: 'openai', model: 'text-embedding-3-small' } },
        request_timeout: 1000,
        targets: [
          { provider: 'openai', api_key: 'sk', override_params: { model: 'gpt-4o' } },
          {
            strategy: { mode: 'conditional', conditions: [{ query: { 'metadata.tier': { $eq: 'pro' } }, then: 'b' }], default: 'b' },
            targets: [{ name: 'b', provider: 'anthropic', api_key: 'sk-ant', weight: 2 }],
          },
        ],
      }),
    );
  });

  test('bad keys are named', () => {
    rejectsWith({ strategy: { mode: 'fallback' }, targets: [{ provider: 'openai', wieght: 1 }] }, 'config.targets[0].wieght');
    rejectsWith({ retry: { attempts: 6 } }, 'config.retry.attempts');
    rejectsWith({ strategy: { mode: 'roundrobin' }, targets: [{ provider: 'openai' }] }, 'config.strategy.mode');
    rejectsWith({ cache: { mode: 'semantic', similarity_threshold: 2 } }, 'config.cache.similarity_threshold');
    rejectsWith(
      { strategy: { mode: 'conditional', conditions: [{ query: { 'metadata.a': 'x' }, then: 'missing' }] }, targets: [{ name: 'a', provider: 'openai' }] },
      'config.strategy.conditions[0].then',
    );
    rejectsWith(
      { strategy: { mode: 'conditional', conditions: [{ query: { 'metadata.a': { $near: 1 } }, then: 'a' }] }, targets: [{ name: 'a', provider: 'openai' }] },
      'config.strategy.conditions[0].query.metadata.a.$near',
    );
    rejectsWith(
      { strategy: { mode: 'conditional', conditions: [{ query: { $or: [{ 'params.model': { $regex: '(' } }] }, then: 'a' }] }, targets: [{ name: 'a', provider: 'openai' }] },
      'config.strategy.conditions[0].query.$or[0].params.model.$regex',
    );
    // A lookbehind compiles in JavaScript but not in RE2, which $regex runs on (linear time, gateway/linear-regex.ts).
    rejectsWith(
      { strategy: { mode: 'conditional', conditions: [{ query: { 'metadata.a': { $regex: '(?<=x)y' } }, then: 'a' }] }, targets: [{ name: 'a', provider: 'openai' }] },
      'config.strategy.conditions[0].query.metadata.a.$regex',
    );
    rejectsWith(
      { strategy: { mode: 'conditional', conditions: [{ query: { 'metadata.a': { $in: 'x' } }, then: 'a' }] }, targets: [{ name: 'a', provider: 'openai' }] },
      'config.strategy.conditions[0].query.metadata.a.$in',
    );
  });
});
