/**
 * The bound on tool rounds and the usage over them (gateway/responses/tool-rounds.ts): gw's tools
 * are offered until GW_RESPONSES_MAX_TOOL_ROUNDS rounds ran them, then the model is asked without
 * them; usage adds up.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { GwTools } from '../../gateway/responses/gw-tools.js';
import { addUsage, ToolRounds } from '../../gateway/responses/tool-rounds.js';
import type { ChatRequest } from '../../gateway/providers/types.js';

const fn = (name: string) => ({ type: 'function' as const, function: { name } });

/** gw runs `file_search`; each run answers a passage. */
const gw = {
  runs: (name: string) => name === 'file_search',
  run: async () => ({ item: { type: 'file_search_call', id: 'fs_1' }, progress: [], output: 'passage' }),
} as unknown as GwTools;

const searchCall = (id: string) => ({ id, type: 'function' as const, function: { name: 'file_search', arguments: '{"query":"q"}' } });

describe('tool rounds', () => {
  it('offers gw tools for at most the bound, then asks without them (the client tools stay)', async () => {
    const rounds = new ToolRounds(gw, 2);
    const chat: ChatRequest = { model: 'm', messages: [{ role: 'user', content: 'hi' }], tools: [fn('lookup'), fn('file_search')], tool_choice: 'auto' };
    const offered: string[][] = [];
    for (let round = 0; round < 3; round++) {
      const request = rounds.request(chat);
      offered.push((request.tools ?? []).map((tool) => tool.function.name));
      if (round < 2) assert.equal(await rounds.afterRound(null, [searchCall(`c${round}`)], async () => undefined), true);
    }
    assert.deepEqual(offered, [['lookup', 'file_search'], ['lookup', 'file_search'], ['lookup']]);
    // Each round's call and its output are in the conversation of the next.
    assert.deepEqual(rounds.request(chat).messages.map((message) => message.role), ['user', 'assistant', 'tool', 'assistant', 'tool']);
  });

  it('with only gw tools, the last round has no tools nor tool_choice', async () => {
    const rounds = new ToolRounds(gw, 1);
    const chat: ChatRequest = { model: 'm', messages: [{ role: 'user', content: 'hi' }], tools: [fn('file_search')], tool_choice: 'required' };
    await rounds.afterRound(null, [searchCall('c0')], async () => undefined);
    const last = rounds.request(chat);
    assert.deepEqual([last.tools, last.tool_choice], [undefined, undefined]);
  });

  it('a round that also calls a client function ends the response, with the assistant turn kept', async () => {
    const rounds = new ToolRounds(gw, 5);
    const more = await rounds.afterRound('Looking', [searchCall('c0'), { id: 'c1', type: 'function', function: { name: 'lookup', arguments: '{}' } }], async () => undefined);
    assert.equal(more, false);
    assert.equal(rounds.replyKept, true);
    assert.deepEqual(rounds.messages.map((message) => message.role), ['assistant', 'tool']);
  });

  it('adds usage over rounds', () => {
    const total = addUsage(addUsage(undefined, { prompt_tokens: 20, completion_tokens: 9, total_tokens: 29 }), { prompt_tokens: 10, completion_tokens: 4, total_tokens: 14, prompt_tokens_details: { cached_tokens: 3 } });
    assert.deepEqual([total?.prompt_tokens, total?.completion_tokens, total?.total_tokens, total?.prompt_tokens_details?.cached_tokens], [30, 13, 43, 3]);
  });
});
