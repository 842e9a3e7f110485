/**
 * Azure OpenAI (cloud1): the OpenAI wire format at
 * https://{resource}.openai.azure.com/openai/deployments/{deployment}/{chat/completions|completions|embeddings}?api-version=...,
 * keyed by an `api-key` header. The deployment decides the model; the body's `model` is kept for
 * the answer. A custom host replaces the resource's origin. The deployment's real model
 * (x-gw-cloud1-model-name), when given, is what the model-family rules judge, since a client may
 * send any name for a deployment. Responses calls that offer hosted tools go to Azure's v1 API,
 * `/openai/v1/responses` (no api-version), whose `model` is the deployment.
 */
import { ValidationError } from '../../../core/errors.js';
import { createOpenAiCompatibleAdapter } from '../openai-compatible/adapter.js';
import { assertTokenLimitField } from '../openai/model-family.js';
import type { ProviderTarget } from '../types.js';

function required(value: string | undefined, header: string): string {
  if (!value) throw new ValidationError(`azure-openai needs ${header}`, header, 'provider_field_missing');
  return value;
}

function resourceOrigin(target: ProviderTarget): string {
  return target.customHost?.replace(/\/+$/, '') ?? `https://${encodeURIComponent(required(target.azure?.resourceName, 'x-gw-cloud1-resource-name'))}.openai.azure.com`;
}

function apiVersion(target: ProviderTarget): string {
  return encodeURIComponent(required(target.azure?.apiVersion, 'x-gw-cloud1-api-version'));
}

/** `operation`: chat/completions, completions or embeddings. */
function deploymentUrl(target: ProviderTarget, _base: string, operation: string): string {
  const deployment = encodeURIComponent(required(target.azure?.deploymentId, 'x-gw-cloud1-deployment-id'));
  return `${resourceOrigin(target)}/openai/deployments/${deployment}/${operation}?api-version=${apiVersion(target)}`;
}

/**
 * Pass-through: Azure serves the OpenAI paths (images, audio, ...) below the deployment, and every
 * call needs api-version, added to the caller's query.
 */
function deploymentProxyUrl(target: ProviderTarget, _base: string, path: string): string {
  const deployment = encodeURIComponent(required(target.azure?.deploymentId, 'x-gw-cloud1-deployment-id'));
  const url = new URL(`${resourceOrigin(target)}/openai/deployments/${deployment}${path}`);
  url.searchParams.set('api-version', required(target.azure?.apiVersion, 'x-gw-cloud1-api-version'));
  return url.toString();
}

/** Azure's files and batches live beside the deployments, not below one: `/openai/files?api-version=...`. */
function batchApiUrl(target: ProviderTarget, _base: string, path: string): string {
  const url = new URL(`${resourceOrigin(target)}/openai${path}`);
  url.searchParams.set('api-version', required(target.azure?.apiVersion, 'x-gw-cloud1-api-version'));
  return url.toString();
}

export const azureOpenAi = createOpenAiCompatibleAdapter({
  name: 'azure-openai',
  // Only a placeholder for the base check: the URL comes from the cloud1 fields.
  baseUrl: 'https://openai.azure.com',
  auth: (apiKey) => ({ 'api-key': apiKey }),
  checkRequest: (request, target) => assertTokenLimitField(target.azure?.modelName ? { ...request, model: target.azure.modelName } : request),
  operationUrl: deploymentUrl,
  modelsUrl: (target) => `${resourceOrigin(target)}/openai/models?api-version=${apiVersion(target)}`,
  proxyUrl: deploymentProxyUrl,
  responsesApi: {
    url: (target) => `${resourceOrigin(target)}/openai/v1/responses`,
    model: (target) => required(target.azure?.deploymentId, 'x-gw-cloud1-deployment-id'),
  },
  // Azure names batch endpoints without the version (`/chat/completions`); lines name the deployment as their model.
  batchApi: { url: batchApiUrl, endpoint: (endpoint) => endpoint.replace(/^\/v1\//, '/') },
});
