import { randomBytes } from 'node:crypto';

/** OpenAI-style ids for responses and their items: `resp_…`, `msg_…`, `fc_…`, `fco_…`, `rs_…`. */
export function newItemId(prefix: 'resp' | 'msg' | 'fc' | 'fco' | 'rs'): string {
  return `${prefix}_${randomBytes(24).toString('hex')}`;
}
