import { randomBytes } from 'node:crypto';

/** OpenAI-style ids for responses and their items: `resp_…`, `msg_…`, `fc_…`, `fco_…`, `ctc_…` (custom tool calls), `rs_…`, `cmp_…` (compactions). */
export function newItemId(prefix: 'resp' | 'msg' | 'fc' | 'fco' | 'ctc' | 'ctco' | 'rs' | 'cmp'): string {
  return `${prefix}_${randomBytes(24).toString('hex')}`;
}
