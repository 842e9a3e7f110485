/**
 * A message as a client writes it (a string, or text / image parts) turned into the stored
 * message's content parts, and the checks the spec cannot say.
 */
import { ValidationError } from '../../core/errors.js';
import type { CreateMessageRequest, MessageObject } from './wire.js';

type Content = MessageObject['content'];

export function messageContent(input: CreateMessageRequest['content'], param: string): Content {
  if (typeof input === 'string') return [{ type: 'text', text: { value: input, annotations: [] } }];
  return input.map((part, index) => {
    if (part.type === 'text') {
      if (typeof part.text !== 'string') throw new ValidationError(`${param}[${index}].text must be a string`, `${param}[${index}].text`);
      return { type: 'text' as const, text: { value: part.text, annotations: [] } };
    }
    if (part.type === 'image_url') {
      if (!part.image_url) throw new ValidationError(`${param}[${index}].image_url is required`, `${param}[${index}].image_url`);
      return { type: 'image_url' as const, image_url: part.image_url };
    }
    // image_file parts would need the file read into the model's request; images go as image_url.
    throw new ValidationError(`${param}[${index}].type image_file is not supported: send the image as image_url`, `${param}[${index}].type`, 'unsupported_content');
  });
}

/** A stored message from a client's message. */
export function newMessage(
  input: CreateMessageRequest,
  param: string,
  ids: { id: string; threadId: string; createdAt: number; assistantId?: string | null; runId?: string | null },
): MessageObject {
  const at = param ? `${param}.` : '';
  return {
    id: ids.id,
    object: 'thread.message',
    created_at: ids.createdAt,
    thread_id: ids.threadId,
    status: 'completed',
    incomplete_details: null,
    completed_at: ids.createdAt,
    incomplete_at: null,
    role: input.role,
    content: messageContent(input.content, `${at}content`),
    assistant_id: ids.assistantId ?? null,
    run_id: ids.runId ?? null,
    attachments: input.attachments ?? null,
    metadata: input.metadata ?? {},
  };
}
