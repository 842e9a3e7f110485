import type { FileRecord } from '../../store/repositories/files.js';

/** OpenAI's file object. */
export function fileObject(file: FileRecord) {
  return {
    id: file.id,
    object: 'file' as const,
    bytes: file.bytes,
    created_at: Math.floor(file.created_at / 1000),
    expires_at: file.expires_at,
    filename: file.filename,
    purpose: file.purpose,
    status: file.status,
  };
}

