import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertValidConfig } from '../../gateway/config-schema.js';
import { ValidationError } from '../../core/errors.js';

describe('inline x-gw-config validation (the spec Config schema, compiled once)', () => {
  test('accepts a nested tree with every documented key', () => {
    const config = {
      strategy: { mode: 'loadbalance' },
      retry: { attempts: 5, on_status_codes: [429], use_retry_after_header: true },
      request_timeout: 10000,
      cache: { mode: 'semantic', max_age: 3600 },
      input_guardrails: ['pii', { checks: [{ id: 'default.pii' }], actions: { deny: true } }],
      output_guardrails: [],
      strict_openai_compliance: true,
      targets: [
        { weight: 0.7, provider: '@prod-openai', override_params: { model: 'gpt-4o' } },
        {
          weight: 0.3,
          strategy: { mode: 'fallback', on_status_codes: [500] },
          targets: [
            { provider: 'bedrock', aws_access_key_id: 'a', aws_secret_access_key: 's', aws_region: 'us-east-1' },
            { provider: 'vertex-ai', vertex_project_id: 'p', vertex_region: 'us-central1', api_key: 'k' },
            { virtual_key: 'legacy-vk', custom_host: 'https://llm.example.com/v1', forward_headers: ['x-user'] },
          ],
        },
      ],
    };
    assert.equal(assertValidConfig(config), config);
  });

  test('throws ValidationError naming the bad key', () => {
    const bad = { strategy: { mode: 'loadbalance' }, targets: [{ provider: 'openai', weight: 1 }, { provider: 'openai', weight: 'heavy' }] };
    assert.throws(
      () => assertValidConfig(bad),
      (error: unknown) => error instanceof ValidationError && error.param === 'config.targets[1].weight' && error.status === 400,
    );
    assert.throws(() => assertValidConfig({ retry: { attempts: 9 } }), { param: 'config.retry.attempts' });
    assert.throws(() => assertValidConfig({ stratgy: { mode: 'single' } }), { param: 'config.stratgy' });
    assert.throws(() => assertValidConfig('not an object'), ValidationError);
  });
});
