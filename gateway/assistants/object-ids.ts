import { randomBytes } from 'node:crypto';

/** OpenAI-style ids (`asst_…`, `thread_…`, `msg_…`, `run_…`, `step_…`, `call_…`, vector stores `vs_…` and their batches `vsfb_…`): a prefix and 24 random characters. */
export function newObjectId(prefix: 'asst' | 'thread' | 'msg' | 'run' | 'step' | 'call' | 'vs' | 'vsfb'): string {
  return `${prefix}_${randomBytes(18).toString('base64url').replace(/[-_]/g, 'x').slice(0, 24)}`;
}

/** Wire timestamps are Unix seconds. */
export function unixSeconds(nowMs: number): number {
  return Math.floor(nowMs / 1000);
}
