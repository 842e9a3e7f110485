/**
 * The semantic cache's embedding call, made like a chat call: the `cache.embedding` settings are
 * resolved as a routing leaf (provider name + api_key, or a saved provider by virtual_key, and a
 * custom host vetted by the outbound guard), then `POST {base}/embeddings` goes through the
 * gateway's upstream client with its own timeout and the client's disconnect.
 */
import { ValidationError } from '../../core/errors.js';
import { EMBEDDING_BASE_URLS, embedText, type JsonPost } from '../cache/semantic/embedder.js';
import { resolveLeafTarget } from '../resolve/leaf-target.js';
import type { ConfigNode, EmbeddingSettings } from '../routing/config-node.js';
import { UpstreamAttempt } from '../transport/upstream-attempt.js';
import type { ChatState } from './chat-state.js';
import { answerSource, readCappedBody } from '../outbound/answer-cap.js';

export function embedderFor(state: ChatState) {
  return (settings: EmbeddingSettings, timeoutMs: number) =>
    async (text: string): Promise<number[]> => {
      const { services } = state.call;
      const leaf: ConfigNode = { provider: settings.provider, api_key: settings.api_key, virtual_key: settings.virtual_key, custom_host: settings.custom_host };
      const { target, guarded } = await resolveLeafTarget({
        settings: leaf,
        model: settings.model,
        headers: state.call.req.headers,
        forwardHeaderNames: [],
        organisationId: state.principal.organisationId,
        workspaceId: state.principal.gatewayWorkspaceId,
        savedResources: services.savedResources,
        outbound: services.outbound,
      });
      const baseUrl = target.customHost ?? EMBEDDING_BASE_URLS[target.provider];
      if (!baseUrl) {
        throw new ValidationError(`cache.embedding: ${target.provider} has no OpenAI-shaped embeddings endpoint; set custom_host`, 'cache.embedding.provider');
      }
      const post: JsonPost = async (url, headers, body, ms) => {
        const attempt = new UpstreamAttempt(ms, state.clientGone);
        try {
          const response = await services.upstreams.send(
            { method: 'POST', url, headers, body },
            { provider: target.provider, customHost: target.customHost !== undefined, guarded, signal: attempt.signal },
          );
          const text = (await readCappedBody(response.body, response.headers, services.config.maxUpstreamAnswerBytes, answerSource(url))).toString('utf8');
          return { status: response.statusCode, body: text ? (JSON.parse(text) as unknown) : undefined };
        } catch (error) {
          throw attempt.failure(error);
        } finally {
          attempt.dispose();
        }
      };
      const headers: Record<string, string> = target.apiKey ? { authorization: `Bearer ${target.apiKey}` } : {};
      return embedText(post, { baseUrl, model: settings.model, headers }, text, timeoutMs);
    };
}
