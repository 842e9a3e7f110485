import { randomBytes } from 'node:crypto';

/** OpenAI-style ids for responses and their items: `resp_…`, `msg_…`, `fc_…`, `fco_…`, `ctc_…` (custom tool calls), `rs_…`, `cmp_…` (compactions), `fs_…` (file searches), `mcp_…`, `mcpl_…` (MCP tool lists). */
export function newItemId(prefix: 'resp' | 'msg' | 'fc' | 'fco' | 'ctc' | 'ctco' | 'rs' | 'cmp' | 'fs' | 'mcp' | 'mcpl'): string {
  return `${prefix}_${randomBytes(24).toString('hex')}`;
}
