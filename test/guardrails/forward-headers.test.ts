import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkForwardHeaders } from '../../gateway/guardrails/forward-headers.js';
import { ValidationError } from '../../core/errors.js';

function refusal(names: unknown): ValidationError {
  try {
    checkForwardHeaders(names, 'checks[0].parameters.forwardHeaders');
  } catch (error) {
    assert.ok(error instanceof ValidationError, String(error));
    return error;
  }
  assert.fail(`${JSON.stringify(names)} was accepted`);
}

describe('guardrail forwardHeaders', () => {
  it('accepts ordinary header names, lower-cased and without duplicates', () => {
    assert.deepEqual(
      checkForwardHeaders(['X-Request-Id', 'x-request-id', 'Accept-Language', 'user-agent', 'x-tokenizer', 'x-user_tier'], 'forwardHeaders'),
      ['x-request-id', 'accept-language', 'user-agent', 'x-tokenizer', 'x-user_tier'],
    );
    assert.deepEqual(checkForwardHeaders(undefined, 'forwardHeaders'), []);
    assert.deepEqual(checkForwardHeaders([], 'forwardHeaders'), []);
  });

  it('refuses a value that is not a list of names', () => {
    for (const value of ['authorization', { authorization: true }, 3]) {
      const error = refusal(value);
      assert.equal(error.param, 'checks[0].parameters.forwardHeaders');
      assert.equal(error.code, 'invalid_forward_headers');
      assert.equal(error.status, 400);
    }
  });

  it('refuses invalid header names, naming the entry', () => {
    for (const name of ['x request', 'x:forwarded', '', 'héader', 'x-a\r\nx-b', 42, null]) {
      const error = refusal(['x-ok', name]);
      assert.equal(error.param, 'checks[0].parameters.forwardHeaders[1]', String(name));
      assert.equal(error.code, 'invalid_forward_headers', String(name));
      assert.match(error.message, /must be a valid header name/);
    }
  });

  it('refuses credentials, cloud metadata, internal routing and hop-by-hop headers', () => {
    const families: Record<string, string[]> = {
      'a credential header': ['Authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key', 'api-key', 'x-goog-api-key', 'x-amz-security-token', 'x-vendor-session-token', 'x-client-secret', 'x-db-password', 'x-my-apikey'],
      "one of gw's own headers": ['x-gw-api-key', 'X-GW-Config', 'x-gw-virtual-key', 'x-gw-custom-host', 'x-gw-cloud3-secret-access-key'],
      'a cloud metadata header': ['metadata-flavor', 'Metadata', 'x-aws-ec2-metadata-token', 'x-aws-ec2-metadata-token-ttl-seconds', 'x-google-metadata-request'],
      'an internal routing header': ['host', 'x-forwarded-for', 'x-forwarded-host', 'forwarded', 'x-real-ip', 'via', 'x-envoy-original-path', 'x-http-method-override'],
      'a hop-by-hop header': ['connection', 'keep-alive', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'proxy-connection', 'content-length'],
    };
    for (const [family, names] of Object.entries(families)) {
      for (const name of names) {
        const error = refusal(['x-request-id', name]);
        assert.equal(error.param, 'checks[0].parameters.forwardHeaders[1]', name);
        assert.equal(error.code, 'restricted_forward_header', name);
        assert.ok(error.message.includes(`names ${name.toLowerCase()}, ${family}`), `${name}: ${error.message}`);
      }
    }
  });
});
