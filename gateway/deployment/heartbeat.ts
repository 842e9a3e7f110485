/**
 * A self-hosted gw reporting to its control plane (GW_CONTROL_PLANE_URL with GW_DEPLOYMENT_KEY):
 * a job in the worker room posts a heartbeat with this release and public URL, then schedules the
 * next one after the interval the control plane answered. A control plane that is down costs a
 * warning, not the schedule. Policies the control plane says this release cannot enforce are
 * logged as warnings.
 */
import type { JobQueue } from '../../jobs/job-queue.js';
import type { Logger } from '../../core/logger.js';

export const HEARTBEAT_JOB = 'deployment.heartbeat';
const FALLBACK_INTERVAL_MS = 15_000;
const TIMEOUT_MS = 10_000;

export interface HeartbeatOptions {
  controlPlaneUrl: string;
  deploymentKey: string;
  version: string;
  publicUrl: string;
  logger: Logger;
}

export async function startDeploymentHeartbeat(jobs: JobQueue, options: HeartbeatOptions): Promise<void> {
  const url = `${options.controlPlaneUrl.replace(/\/+$/, '')}/v1/deployments/heartbeat`;
  jobs.register(
    HEARTBEAT_JOB,
    async () => {
      let intervalMs = FALLBACK_INTERVAL_MS;
      try {
        const response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-gw-api-key': options.deploymentKey },
          body: JSON.stringify({ version: `v${options.version}`, gateway_base_url: options.publicUrl }),
          // The deployment key goes to the configured control plane only, never where a redirect points.
          redirect: 'error',
          signal: AbortSignal.timeout(TIMEOUT_MS),
        });
        const answer = (await response.json().catch(() => ({}))) as { heartbeat_interval_seconds?: number; unsupported_policies?: Array<{ message: string }> };
        if (!response.ok) {
          options.logger.warn({ status: response.status }, 'control plane refused the deployment heartbeat');
        } else {
          if (typeof answer.heartbeat_interval_seconds === 'number') intervalMs = answer.heartbeat_interval_seconds * 1000;
          for (const policy of answer.unsupported_policies ?? []) options.logger.warn({ policy: policy.message }, 'policy this release cannot enforce');
        }
      } catch (error) {
        options.logger.warn({ err: (error as Error).message }, 'control plane unreachable for the deployment heartbeat');
      } finally {
        await jobs.enqueue(HEARTBEAT_JOB, {}, { singletonKey: 'heartbeat', delayMs: intervalMs });
      }
    },
    { concurrency: 1 },
  );
  await jobs.enqueue(HEARTBEAT_JOB, {}, { singletonKey: 'heartbeat' });
}
