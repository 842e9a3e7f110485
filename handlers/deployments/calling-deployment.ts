import { principalOf, type Call } from '../../core/call.js';
import { ForbiddenError } from '../../core/errors.js';
import type { DeploymentRecord } from '../../store/repositories/deployments.js';

/** The deployment whose key made this call; any other key is refused. */
export async function callingDeployment(call: Call, action: string): Promise<DeploymentRecord> {
  const principal = principalOf(call);
  const deployment = principal.keyId ? await call.services.store.deployments.byKey(principal.keyId) : undefined;
  if (!deployment) throw new ForbiddenError(`Only a deployment key may ${action}`, 'not_a_deployment_key');
  return deployment;
}
