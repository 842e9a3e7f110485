/**
 * Vertex AI (cloud2) URLs: https://{region}-aiplatform.googleapis.com/v1/projects/{project}/
 * locations/{region}/publishers/{publisher}/models/{model}:{operation}; the `global` region is
 * served by aiplatform.googleapis.com. A custom host replaces the origin. The model picks the
 * publisher: Claude models (ids starting with `claude`) are Anthropic's, the rest Google's; an
 * explicit `google/` or `anthropic/` prefix is accepted too.
 */
import { ValidationError } from '../../../core/errors.js';
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
  const location = locationPath(target);
  return versionedUrl(originOf(target), 'v1', `${location}/publishers/${model.publisher}/models/${modelSegment(model.id)}:${operation}`);
}

/**
 * A pass-through path below /v1: one that starts with `/projects/` names its own project and
 * location and goes as it is; any other is a path inside the target's project and location
 * (`/publishers/google/models/gemini-2.5-flash:countTokens`, `/endpoints/123:predict`).
 */
export function vertexPathUrl(target: ProviderTarget, path: string): string {
  const below = path.replace(/^\//, '');
  return versionedUrl(originOf(target), 'v1', /^projects\//.test(below) ? below : `${locationPath(target)}/${below}`);
}

function regionOf(target: ProviderTarget): string {
  const region = target.vertex?.region;
  if (!region) throw new ValidationError('vertex-ai needs a region: send x-gw-cloud2-region', 'x-gw-cloud2-region');
  return region;
}

function originOf(target: ProviderTarget): string {
  const region = regionOf(target);
  return target.customHost ?? (region === 'global' ? 'https://aiplatform.googleapis.com' : `https://${encodeURIComponent(region)}-aiplatform.googleapis.com`);
}

function locationPath(target: ProviderTarget): string {
  const projectId = target.vertex?.projectId;
  if (!projectId) throw new ValidationError('vertex-ai needs a project id: send x-gw-cloud2-project-id', 'x-gw-cloud2-project-id');
  return `projects/${encodeURIComponent(projectId)}/locations/${encodeURIComponent(regionOf(target))}`;
}
