/** The data-plane prompt calls: render (the chat request gw would send) and completions (sent). */
import { runChat } from '../../gateway/chat/run-chat.js';
import { renderChatRequest } from '../../gateway/prompts/render-prompt.js';
import { principalOf } from '../../core/call.js';
import { pathId, STREAMED, type Handler } from '../types.js';
import { viewerOf } from './prompt-rules.js';

export const createPromptRender: Handler = async (c, call) => {
  const resolved = await call.services.promptLibrary.resolve(viewerOf(principalOf(call)), pathId(c));
  return { body: { success: true, data: renderChatRequest(resolved, (c.request.requestBody ?? {}) as Record<string, unknown>) } };
};

export const createPromptCompletion: Handler = async (c, call) => {
  const resolved = await call.services.promptLibrary.resolve(viewerOf(principalOf(call)), pathId(c));
  const request = renderChatRequest(resolved, (c.request.requestBody ?? {}) as Record<string, unknown>);
  const virtualKey = resolved.fields.virtual_key;
  const result = await runChat(call, request, {
    endpoint: 'prompts.completions',
    prompt: { id: resolved.promptId, version: resolved.version, label: resolved.label },
    savedProvider: typeof virtualKey === 'string' ? virtualKey.replace(/^@/, '') : undefined,
  });
  return result.completion ? { status: result.status, body: result.completion, headers: result.headers } : STREAMED;
};
