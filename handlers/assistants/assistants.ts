import { assertAssistantSelection } from '../../gateway/assistants/assistant-selection.js';
import { newObjectId, unixSeconds } from '../../gateway/assistants/object-ids.js';
import type { AssistantObject } from '../../gateway/assistants/wire.js';
import { assertModelProvider, checkedToolResources } from '../../gateway/assistants/assistant-references.js';
import { storedPrincipal } from '../../gateway/batches/line-call.js';
import { principalOf } from '../../core/call.js';
import { NotFoundError } from '../../core/errors.js';
import { nextPosition } from '../../store/repositories/assistant-objects.js';
import type { Call } from '../../core/call.js';
import { body, query, type Handler } from '../types.js';
import { ownerOf, pathParam } from './owner.js';

async function visibleAssistant(call: Call, id: string): Promise<AssistantObject> {
  const row = await call.services.store.assistants.get({ workspaceId: ownerOf(call).workspaceId }, id);
  if (!row) throw new NotFoundError('Assistant', id);
  return row.body;
}

export const createAssistant: Handler = async (c, call) => {
  const input = body<'createAssistant'>(c);
  const owner = ownerOf(call);
  await assertAssistantSelection(call.services.savedResources, owner, input.metadata);
  await assertModelProvider(call.services, owner, input.model);
  const toolResources = await checkedToolResources(call.services, owner, storedPrincipal(principalOf(call)), input.tool_resources);
  const now = call.services.now();
  const assistant: AssistantObject = {
    id: newObjectId('asst'),
    object: 'assistant',
    created_at: unixSeconds(now),
    name: input.name ?? null,
    description: input.description ?? null,
    model: input.model,
    instructions: input.instructions ?? null,
    tools: input.tools ?? [],
    tool_resources: toolResources,
    metadata: input.metadata ?? {},
    temperature: input.temperature ?? 1,
    top_p: input.top_p ?? 1,
    response_format: input.response_format ?? 'auto',
  };
  await call.services.store.assistants.insert({
    id: assistant.id,
    organisation_id: owner.organisationId,
    workspace_id: owner.workspaceId,
    thread_id: null,
    run_id: null,
    position: nextPosition(now),
    body: assistant,
  });
  return { body: assistant };
};

export const listAssistants: Handler = async (c, call) => ({
  body: await call.services.store.assistants.list({ workspaceId: ownerOf(call).workspaceId }, query<'listAssistants'>(c)),
});

export const getAssistant: Handler = async (c, call) => ({ body: await visibleAssistant(call, pathParam(c, 'assistant_id')) });

export const modifyAssistant: Handler = async (c, call) => {
  const current = await visibleAssistant(call, pathParam(c, 'assistant_id'));
  const input = body<'modifyAssistant'>(c);
  const owner = ownerOf(call);
  if (input.metadata !== undefined) await assertAssistantSelection(call.services.savedResources, owner, input.metadata);
  if (input.model !== undefined) await assertModelProvider(call.services, owner, input.model);
  const updated = { ...current, ...input } as AssistantObject;
  if (input.tool_resources !== undefined) updated.tool_resources = await checkedToolResources(call.services, owner, storedPrincipal(principalOf(call)), input.tool_resources);
  await call.services.store.assistants.replaceBody(current.id, updated);
  return { body: updated };
};

export const deleteAssistant: Handler = async (c, call) => {
  const id = pathParam(c, 'assistant_id');
  if (!(await call.services.store.assistants.delete({ workspaceId: ownerOf(call).workspaceId }, id))) throw new NotFoundError('Assistant', id);
  return { body: { id, object: 'assistant.deleted', deleted: true } };
};
