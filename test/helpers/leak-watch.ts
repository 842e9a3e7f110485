import assert from 'node:assert/strict';
import type { TestApp } from './test-app.js';

type Method = 'get' | 'post' | 'put' | 'delete';

/**
 * Calls an app and keeps every response body, so a suite can assert at its end that no secret it
 * sent ever came back in any answer.
 */
export function leakWatch(app: () => TestApp) {
  const bodies: string[] = [];
  return {
    async call(method: Method, path: string, headers: Record<string, string>, body?: unknown) {
      const request = app().http[method](path).set(headers);
      const response = body === undefined ? await request : await request.send(body as object);
      bodies.push(JSON.stringify(response.body));
      return response;
    },
    assertNothingLeaked(secrets: readonly string[]) {
      for (const secret of secrets) assert.ok(!bodies.some((b) => b.includes(secret)), `${secret} leaked into a response`);
    },
  };
}
