/**
 * Where bedrock and vertex-ai send a pass-through on their own hosts (the e2e tests use custom
 * hosts on loopback): the Bedrock runtime host of the region, signed; Vertex AI's regional or
 * global host, inside the target's project and location unless the path names its own.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bedrock } from '../../gateway/providers/bedrock/index.js';
import type { ProviderTarget } from '../../gateway/providers/types.js';
import { vertexAi } from '../../gateway/providers/vertex-ai/index.js';
import { ValidationError } from '../../core/errors.js';

describe('pass-through URLs on the providers own hosts', () => {
  it('bedrock: the path below the runtime host of the region, signed for it with the body headers', async () => {
    const target: ProviderTarget = { provider: 'bedrock', apiKey: 'AKIAEXAMPLE', bedrock: { secretAccessKey: 's', sessionToken: 'tok', region: 'eu-west-1' } };
    const signed = { method: 'POST', headers: { 'content-type': 'application/json' }, body: Buffer.from('{"inputText":"hi"}') };
    const upstream = await bedrock.buildProxyRequest!(target, { path: '/model/amazon.titan-embed-text-v2%3A0/invoke', signed });
    assert.equal(upstream.url, 'https://bedrock-runtime.eu-west-1.amazonaws.com/model/amazon.titan-embed-text-v2%3A0/invoke');
    assert.match(upstream.headers.authorization!, /^AWS4-HMAC-SHA256 Credential=AKIAEXAMPLE\/\d{8}\/eu-west-1\/bedrock\/aws4_request, SignedHeaders=content-type;host;[^,]*x-amz-security-token, Signature=/);
    assert.equal(upstream.headers['x-amz-security-token'], 'tok');
    assert.equal(upstream.headers.host, undefined, 'the transport sends the host from the URL');
  });

  it('vertex-ai: a path inside the project and location, a /projects/ path as it is, the global host', () => {
    const target: ProviderTarget = { provider: 'vertex-ai', accessToken: 'ya29.token', vertex: { projectId: 'proj', region: 'us-central1' } };
    const inside = vertexAi.buildProxyRequest!(target, { path: '/publishers/google/models/gemini-2.5-flash:countTokens' }) as { url: string; headers: Record<string, string> };
    assert.equal(inside.url, 'https://us-central1-aiplatform.googleapis.com/v1/projects/proj/locations/us-central1/publishers/google/models/gemini-2.5-flash:countTokens');
    assert.deepEqual(inside.headers, { authorization: 'Bearer ya29.token' }, 'the caller keeps its own content type');

    const own = vertexAi.buildProxyRequest!(target, { path: '/projects/other/locations/us-central1/batchPredictionJobs?pageSize=2' }) as { url: string };
    assert.equal(own.url, 'https://us-central1-aiplatform.googleapis.com/v1/projects/other/locations/us-central1/batchPredictionJobs?pageSize=2');

    const global = vertexAi.buildProxyRequest!({ ...target, vertex: { projectId: 'proj', region: 'global' } }, { path: '/endpoints/1:predict' }) as { url: string };
    assert.equal(global.url, 'https://aiplatform.googleapis.com/v1/projects/proj/locations/global/endpoints/1:predict');

    assert.throws(() => vertexAi.buildProxyRequest!({ ...target, vertex: { region: 'us-central1' } }, { path: '/endpoints/1:predict' }), (error: unknown) => error instanceof ValidationError && error.param === 'x-gw-cloud2-project-id');
  });
});
