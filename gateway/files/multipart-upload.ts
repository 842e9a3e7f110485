import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import busboy from 'busboy';
import type { FileRecord } from '../../store/repositories/files.js';
import { ApiError, ValidationError } from '../../core/errors.js';
import { fileTooLarge, type FileStore } from './file-store.js';
import { ClientClosedError } from '../transport/upstream-attempt.js';

export const FILE_PURPOSES = ['assistants', 'assistants_output', 'batch', 'batch_output', 'fine-tune', 'fine-tune-results', 'vision', 'user_data', 'evals'];

/**
 * Reads a `/v1/files` multipart body as it arrives: the `purpose` field, then the `file` part,
 * whose bytes go straight to the file store. OpenAI's clients send `purpose` first; a form that
 * sends the file first is still read, the file buffered in the store until `purpose` is known.
 */
export async function storeMultipartUpload(req: IncomingMessage, files: FileStore, owner: { organisationId: string; workspaceId: string }): Promise<FileRecord> {
  const contentType = req.headers['content-type'] ?? '';
  if (!/^multipart\/form-data\b/i.test(contentType)) {
    throw new ApiError(415, 'unsupported_media_type', 'Upload files as multipart/form-data with the fields purpose and file', 'invalid_request_error', { param: 'content-type' });
  }
  const declared = Number(req.headers['content-length']);
  // The form's own framing adds a few hundred bytes; anything far past the limit is refused unread.
  if (Number.isFinite(declared) && declared > files.maxBytes + 64 * 1024) {
    req.resume();
    throw fileTooLarge(files.maxBytes);
  }
  const unreadable = (error: Error) => new ValidationError(`The multipart body cannot be read: ${error.message}`, 'file', 'invalid_multipart');
  let parser: busboy.Busboy;
  try {
    parser = busboy({ headers: req.headers, limits: { fileSize: files.maxBytes, files: 1, fields: 10 } });
  } catch (error) {
    throw unreadable(error as Error);
  }
  return new Promise<FileRecord>((resolve, reject) => {
    const fields: Record<string, string> = {};
    let stored: Promise<FileRecord> | undefined;
    let body: PassThrough | undefined;
    let failed = false;
    let parsed = false;
    const fail = (error: unknown) => {
      if (failed) return;
      failed = true;
      req.unpipe(parser);
      req.resume();
      // A file already stored whole (the form broke after its part) is not kept for a failed upload.
      void stored?.then((file) => files.delete(owner.workspaceId, file.id)).catch(() => undefined);
      reject(error);
    };
    parser.on('field', (name, value) => {
      fields[name] = value;
    });
    parser.on('file', (name, stream, info) => {
      // A form that ends early fails its open part as well as the parser: every part's stream is listened to.
      if (name !== 'file') {
        stream.on('error', () => undefined).resume();
        return;
      }
      const content = (body = new PassThrough());
      stream.on('limit', () => content.destroy(fileTooLarge(files.maxBytes)));
      stream.on('error', (error: Error) => content.destroy(unreadable(error)));
      stream.pipe(content);
      stored = files.write({ ...owner, purpose: fields.purpose ?? 'pending', filename: info.filename || 'upload' }, content);
      stored.catch(fail);
    });
    parser.on('error', (error: Error) => fail(unreadable(error)));
    parser.on('close', () => {
      parsed = true;
      if (failed) return;
      const purpose = fields.purpose;
      if (!stored) return fail(new ValidationError("The form has no 'file' part", 'file'));
      if (!purpose || !FILE_PURPOSES.includes(purpose)) {
        return fail(new ValidationError(`purpose must be one of ${FILE_PURPOSES.join(', ')}`, 'purpose'));
      }
      stored.then((file) => (file.purpose === purpose ? file : files.setPurpose(owner.workspaceId, file.id, purpose))).then(resolve, fail);
    });
    // A client that goes away mid-upload ends the wait (and the partial file) instead of leaving it open.
    req.once('close', () => {
      if (parsed || req.complete) return;
      const gone = new ClientClosedError();
      fail(gone);
      body?.destroy(gone);
    });
    req.pipe(parser);
  });
}
