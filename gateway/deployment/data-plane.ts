/**
 * Data-plane mode (GW_CONTROL_PLANE_URL with GW_DEPLOYMENT_KEY): two jobs in the worker room.
 * `deployment.sync` polls the control plane's snapshot with If-None-Match, applies a new one to
 * this gw's own store (its last good copy, served from while the control plane is away, across
 * restarts too) and empties the caches that read those tables. `deployment.ship-logs` sends the
 * request logs queued in the store's outbox, in batches, and clears the ids of a batch only once
 * the control plane has acknowledged it (it stores each log id once, so a lost ack costs nothing).
 */
import type { Knex } from 'knex';
import type { JobQueue } from '../../jobs/job-queue.js';
import type { InvalidationBus } from '../../core/invalidation.js';
import type { Logger } from '../../core/logger.js';
import { ALL_API_KEYS, API_KEYS_TOPIC } from '../../core/auth/topics.js';
import { USERS_TOPIC } from '../../core/auth/topics.js';
import type { SecretBox } from '../../store/secret-box.js';
import { DeploymentSyncStateRepository } from '../../store/repositories/deployment-sync-state.js';
import { clearOutbox, readOutbox } from '../../store/shipped-logs.js';
import type { ChangedRows } from '../../store/deployment-snapshot.js';
import { LIMIT_POLICIES_TOPIC } from '../limits/policy-cache.js';
import { GUARDRAILS_TOPIC } from '../guardrails/saved-guardrails.js';
import { SECRET_REFERENCES_TOPIC } from '../secrets/secret-values.js';
import { SAVED_RESOURCE_TOPICS } from '../saved-resources-store.js';
import { AGENT_INTEGRATIONS_TOPIC } from '../a2a/agent-directory.js';
import { PROMPTS_TOPIC } from '../prompts/prompt-library.js';
import { MCP_SERVERS_TOPIC } from '../mcp/mcp-directory.js';
import { applySnapshot, type Snapshot } from './snapshot.js';
import { TransferKeys } from './transfer-seal.js';

export const SYNC_JOB = 'deployment.sync';
export const SHIP_LOGS_JOB = 'deployment.ship-logs';
const SNAPSHOT_VERSION = 'snapshot_version';
/** Rows per shipped batch: with bodies at GW_LOG_BODY_MAX_BYTES a batch stays well under the 32 MB body cap. */
export const SHIP_BATCH = 50;
const TIMEOUT_MS = 10_000;

/** Caches that clear wholesale on any message (the id is not read). */
const CLEARED_TOPICS = [LIMIT_POLICIES_TOPIC, GUARDRAILS_TOPIC, SECRET_REFERENCES_TOPIC, AGENT_INTEGRATIONS_TOPIC, PROMPTS_TOPIC, MCP_SERVERS_TOPIC, ...Object.values(SAVED_RESOURCE_TOPICS)];

export interface DataPlaneOptions {
  controlPlaneUrl: string;
  deploymentKey: string;
  /** How often to poll the snapshot and ship logs (GW_SYNC_INTERVAL_MS). */
  intervalMs: number;
  db: Knex;
  secrets: SecretBox;
  bus: InvalidationBus;
  logger: Logger;
  now: () => number;
}

export type PullOutcome = 'applied' | 'current' | 'failed';

export class DataPlaneSync {
  private readonly keys = new TransferKeys();
  private readonly state: DeploymentSyncStateRepository;
  private readonly base: string;

  constructor(private readonly options: DataPlaneOptions) {
    this.state = new DeploymentSyncStateRepository(options.db);
    this.base = options.controlPlaneUrl.replace(/\/+$/, '');
  }

  /** One poll; a control plane that is down or refuses leaves the last good copy in place. */
  async pull(): Promise<PullOutcome> {
    const { logger } = this.options;
    try {
      const known = await this.state.get(SNAPSHOT_VERSION);
      const response = await fetch(`${this.base}/v1/deployments/sync`, {
        headers: { 'x-gw-api-key': this.options.deploymentKey, 'x-gw-sync-key': this.keys.publicKey, ...(known ? { 'if-none-match': `"${known}"` } : {}) },
        // The deployment key goes to the configured control plane only, never where a redirect points.
        redirect: 'error',
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      if (response.status === 304) return 'current';
      if (!response.ok) {
        logger.warn({ status: response.status, body: (await response.text()).slice(0, 500) }, 'control plane refused the deployment sync; serving the last good copy');
        return 'failed';
      }
      const snapshot = (await response.json()) as Snapshot;
      const changed = await applySnapshot(this.options.db, this.options.secrets, this.keys, snapshot);
      await this.state.set(SNAPSHOT_VERSION, snapshot.version, this.isoNow());
      await this.invalidate(changed);
      logger.info({ version: snapshot.version }, 'applied the control plane snapshot');
      return 'applied';
    } catch (error) {
      logger.warn({ err: (error as Error).message }, 'control plane unreachable for the deployment sync; serving the last good copy');
      return 'failed';
    }
  }

  /** Ships one batch; `more` when the outbox gave a full one (more may wait). A failure leaves the outbox as it was. */
  async shipLogs(): Promise<{ shipped: number; more: boolean }> {
    const { db } = this.options;
    const batch = await readOutbox(db, SHIP_BATCH);
    if (!batch.ids.length) return { shipped: 0, more: false };
    const more = batch.ids.length === SHIP_BATCH;
    if (!batch.rows.length) {
      // Retention deleted these rows before they went: nothing to send, the ids just leave.
      await clearOutbox(db, batch.ids);
      return { shipped: 0, more };
    }
    const response = await fetch(`${this.base}/v1/deployments/logs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gw-api-key': this.options.deploymentKey },
      body: JSON.stringify({ logs: batch.rows }),
      redirect: 'error',
      signal: AbortSignal.timeout(TIMEOUT_MS * 3),
    });
    if (!response.ok) throw new Error(`control plane answered ${response.status} to shipped logs: ${(await response.text()).slice(0, 500)}`);
    await clearOutbox(db, batch.ids);
    return { shipped: batch.rows.length, more };
  }

  /** Registers both jobs and starts them; each re-schedules itself, so one of each waits at a time. */
  async start(jobs: JobQueue): Promise<void> {
    const { intervalMs, logger } = this.options;
    jobs.register(
      SYNC_JOB,
      async () => {
        try {
          await this.pull();
        } finally {
          await jobs.enqueue(SYNC_JOB, {}, { singletonKey: 'sync', delayMs: intervalMs });
        }
      },
      { concurrency: 1 },
    );
    jobs.register(
      SHIP_LOGS_JOB,
      async () => {
        let delayMs = intervalMs;
        try {
          if ((await this.shipLogs()).more) delayMs = 0;
        } catch (error) {
          logger.warn({ err: (error as Error).message }, 'request logs not shipped yet; kept for the next try');
        } finally {
          await jobs.enqueue(SHIP_LOGS_JOB, {}, { singletonKey: 'ship-logs', delayMs });
        }
      },
      { concurrency: 1 },
    );
    await jobs.enqueue(SYNC_JOB, {}, { singletonKey: 'sync' });
    await jobs.enqueue(SHIP_LOGS_JOB, {}, { singletonKey: 'ship-logs' });
  }

  private async invalidate(changed: ChangedRows): Promise<void> {
    const { bus } = this.options;
    if (changed.api_keys?.length) await bus.publish(API_KEYS_TOPIC, ALL_API_KEYS);
    for (const id of changed.users ?? []) await bus.publish(USERS_TOPIC, id);
    for (const topic of CLEARED_TOPICS) await bus.publish(topic, '*');
  }

  private isoNow(): string {
    return new Date(this.options.now()).toISOString();
  }
}
