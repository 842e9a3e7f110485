/**
 * What the data-plane tests do first on their control plane: admin writes that must succeed, and
 * the saved provider `@upstream` on a fake OpenAI upstream.
 */
import assert from 'node:assert/strict';
import type { TestApp } from '../helpers/test-app.js';

export type AdminPost = (path: string, body: object) => Promise<Record<string, unknown> & { id: string }>;

/** An admin POST on the app `controlPlane()` gives (set in a `before`), failing the test unless it is a 2xx. */
export function adminPost(controlPlane: () => TestApp): AdminPost {
  return async (path, body) => {
    const app = controlPlane();
    const answer = await app.http.post(path).set({ 'x-gw-api-key': app.adminKey }).send(body);
    assert.ok(answer.status < 300, `${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body as Record<string, unknown> & { id: string };
  };
}

/** The saved provider `@upstream`: OpenAI at `upstreamUrl`. */
export async function saveUpstreamProvider(post: AdminPost, upstreamUrl: string): Promise<void> {
  await post('/v1/providers', { name: 'Upstream', slug: 'upstream', ai_provider_id: 'openai', key: 'sk-upstream-0123456789', configurations: { custom_host: upstreamUrl } });
}
