/**
 * Vertex AI (cloud2) URLs: https://{region}-aiplatform.googleapis.com/v1/projects/{project}/
 * locations/{region}/publishers/{publisher}/models/{model}:{operation}; the `global` region is
 * served by aiplatform.googleapis.com. A custom host replaces the origin. The model picks the
 * publisher: Claude models (ids starting with `claude`) are Anthropic's, the rest Google's; an
 * explicit `google/` or `anthropic/` prefix is accepted too.
 */
import { ValidationError } from '../../../server/errors.js';
import { versionedUrl } from '../gemini/endpoint.js';
import type { ProviderTarget } from '../types.js';

export type VertexPublisher = 'google' | 'anthropic';

export interface VertexModel {
  publisher: VertexPublisher;
  id: string;
}

export function vertexModelOf(model: string): VertexModel {
  const prefixed = /^(google|anthropic)\/(.+)$/.exec(model);
  const id = prefixed ? prefixed[2]! : model;
  const publisher = (prefixed?.[1] as VertexPublisher | undefined) ?? (/^claude/i.test(id) ? 'anthropic' : 'google');
  return { publisher, id };
}

function operationOf(publisher: VertexPublisher, stream: boolean): string {
  if (publisher === 'anthropic') return stream ? 'streamRawPredict' : 'rawPredict';
  return stream ? 'streamGenerateContent?alt=sse' : 'generateContent';
}

/** Partner model ids carry a version after `@` (claude-sonnet-4-5@20250929): a valid path character, kept as Vertex documents it. */
function modelSegment(id: string): string {
  return encodeURIComponent(id).replace(/%40/g, '@');
}

export function vertexUrl(target: ProviderTarget, model: VertexModel, stream: boolean): string {
  return vertexModelUrl(target, model, operationOf(model.publisher, stream));
}

/** A model's URL for any operation (`predict` for embeddings). */
export function vertexModelUrl(target: ProviderTarget, model: VertexModel, operation: string): string {
  const projectId = target.vertex?.projectId;
  const region = target.vertex?.region;
  if (!projectId) throw new ValidationError('vertex-ai needs a project id: send x-gw-cloud2-project-id', 'x-gw-cloud2-project-id');
  if (!region) throw new ValidationError('vertex-ai needs a region: send x-gw-cloud2-region', 'x-gw-cloud2-region');
  const origin = target.customHost ?? (region === 'global' ? 'https://aiplatform.googleapis.com' : `https://${encodeURIComponent(region)}-aiplatform.googleapis.com`);
  const path = `projects/${encodeURIComponent(projectId)}/locations/${encodeURIComponent(region)}/publishers/${model.publisher}/models/${modelSegment(model.id)}:${operation}`;
  return versionedUrl(origin, 'v1', path);
}
