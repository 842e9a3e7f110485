import type { Call } from '../../core/call.js';
import { sendStream } from '../../core/respond.js';
import { STREAMED, type HandlerResult } from '../types.js';

/** Streams a stored file as the answer, chunk by chunk (sendStream: backpressure, a client going away, a failed read). */
export async function sendFile(call: Call, workspaceId: string, fileId: string, options: { attachment?: boolean } = {}): Promise<HandlerResult> {
  const file = await call.services.files.get(workspaceId, fileId);
  const { res } = call;
  res.statusCode = 200;
  res.setHeader('content-type', 'application/octet-stream');
  res.setHeader('content-length', String(file.bytes));
  if (options.attachment) res.setHeader('content-disposition', `attachment; filename="${file.filename.replace(/["\\\r\n]/g, '_')}"`);
  await sendStream(res, call.services.files.read(workspaceId, file.id));
  return STREAMED;
}
