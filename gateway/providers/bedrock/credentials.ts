/**
 * cloud3 credentials: who signs the Bedrock call. The access key id arrives as the target's
 * apiKey (`Authorization: Bearer <access key id>` or a saved provider) unless the target carries
 * it explicitly; the secret, session token and region come from the x-gw-cloud3-* headers.
 */
import { ValidationError } from '../../../core/errors.js';
import type { ProviderTarget } from '../types.js';

export const DEFAULT_REGION = 'us-east-1';

export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  region: string;
}

// Region names are lowercase words and digits (us-east-1, eu-central-2, us-gov-west-1); checking
// the shape keeps a header value from steering the request to another host.
const REGION_PATTERN = /^[a-z]{2}(-[a-z]+)+-\d+$/;

export function awsCredentials(target: ProviderTarget): AwsCredentials {
  const cloud3 = target.bedrock ?? {};
  const accessKeyId = cloud3.accessKeyId ?? target.apiKey;
  if (!accessKeyId) {
    throw new ValidationError('bedrock needs an AWS access key id in `Authorization: Bearer <access key id>`', 'authorization');
  }
  if (!cloud3.secretAccessKey) {
    throw new ValidationError('bedrock needs the AWS secret access key in the x-gw-cloud3-secret-access-key header', 'x-gw-cloud3-secret-access-key');
  }
  const region = cloud3.region ?? DEFAULT_REGION;
  if (!REGION_PATTERN.test(region)) {
    throw new ValidationError(`x-gw-cloud3-region "${region}" is not an AWS region name`, 'x-gw-cloud3-region');
  }
  return { accessKeyId, secretAccessKey: cloud3.secretAccessKey, sessionToken: cloud3.sessionToken || undefined, region };
}
