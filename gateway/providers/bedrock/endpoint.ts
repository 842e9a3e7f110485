/**
 * Bedrock URLs. Runtime calls go to bedrock-runtime.{region}.amazonaws.com, the models list to the
 * bedrock control plane; a custom host replaces either base. The model id is one path segment, so
 * it is percent-encoded whole: `anthropic.claude-3-5-sonnet-20240620-v1:0`, inference profile ids
 * and full ARNs (which contain `/`) all land in `/model/{modelId}/...`. A pass-through path goes
 * below the runtime base unchanged (its caller encoded it).
 */
import type { ProviderTarget } from '../types.js';

function base(target: ProviderTarget, defaultBase: string): string {
  return (target.customHost ?? defaultBase).replace(/\/+$/, '');
}

function runtimeBase(target: ProviderTarget, region: string): string {
  return base(target, `https://bedrock-runtime.${region}.amazonaws.com`);
}

/** A pass-through path (`/model/{modelId}/invoke`, query included) below the runtime base, as the caller wrote it. */
export function runtimePathUrl(target: ProviderTarget, region: string, path: string): string {
  return `${runtimeBase(target, region)}${path}`;
}

export function converseUrl(target: ProviderTarget, region: string, modelId: string, stream: boolean): string {
  const operation = stream ? 'converse-stream' : 'converse';
  return `${runtimeBase(target, region)}/model/${encodeURIComponent(modelId)}/${operation}`;
}

export function invokeUrl(target: ProviderTarget, region: string, modelId: string): string {
  return `${runtimeBase(target, region)}/model/${encodeURIComponent(modelId)}/invoke`;
}

export function invokeStreamUrl(target: ProviderTarget, region: string, modelId: string): string {
  return `${runtimeBase(target, region)}/model/${encodeURIComponent(modelId)}/invoke-with-response-stream`;
}

export function countTokensUrl(target: ProviderTarget, region: string, modelId: string): string {
  return `${runtimeBase(target, region)}/model/${encodeURIComponent(modelId)}/count-tokens`;
}

export function foundationModelsUrl(target: ProviderTarget, region: string): string {
  return `${base(target, `https://bedrock.${region}.amazonaws.com`)}/foundation-models`;
}
