/**
 * `input_file` content parts as chat content parts. The bytes come from `file_data` (base64, or a
 * data: URL) or from a file uploaded to gw (`file_id`, read from the caller's workspace). A PDF
 * becomes a chat `file` part, which each adapter sends as its provider's document (or refuses with a
 * 400 naming the provider); a text file becomes a text part holding its content, which every
 * provider takes. gw does not fetch `file_url`.
 */
import { principalOf, type Call } from '../../core/call.js';
import { ApiError, ValidationError } from '../../core/errors.js';
import type { InputItem } from './wire.js';

export interface InputFilePart {
  type: 'input_file';
  file_data?: string | null;
  file_id?: string | null;
  file_url?: string | null;
  filename?: string | null;
}

export type ChatFilePart = { type: 'file'; file: { file_data: string; filename?: string } } | { type: 'text'; text: string };

/** The bytes of uploaded files by id, read before the translation (which is synchronous). */
export type LoadedFiles = ReadonlyMap<string, { bytes: Buffer; filename: string }>;

const DATA_URL = /^data:([^;,]+)(?:;[^,]*)?;base64,(.*)$/s;
const TEXT_NAME = /\.(txt|md|markdown|csv|tsv|json|jsonl|xml|html?|ya?ml|log|py|js|ts|sql)$/i;
/** A document sent inline; larger ones are refused (providers cap requests near this size). */
const MAX_FILE_BYTES = 32 * 1024 * 1024;

function isInputFile(part: unknown): part is InputFilePart {
  return typeof part === 'object' && part !== null && (part as { type?: unknown }).type === 'input_file';
}

/** Every file id the input's parts name. */
function fileIdsOf(items: readonly InputItem[]): string[] {
  const ids = new Set<string>();
  for (const item of items) {
    const content = (item as { content?: unknown }).content;
    if (Array.isArray(content)) for (const part of content) if (isInputFile(part) && part.file_id && !part.file_data) ids.add(part.file_id);
  }
  return [...ids];
}

export async function loadInputFiles(call: Call, items: readonly InputItem[]): Promise<LoadedFiles> {
  const loaded = new Map<string, { bytes: Buffer; filename: string }>();
  const workspace = principalOf(call).gatewayWorkspaceId;
  for (const id of fileIdsOf(items)) {
    let record;
    try {
      record = await call.services.files.get(workspace, id);
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) throw new ValidationError(`No file with id '${id}' in this workspace.`, 'input', 'file_not_found');
      throw error;
    }
    if (record.bytes > MAX_FILE_BYTES) throw new ValidationError(`File '${id}' is larger than ${MAX_FILE_BYTES} bytes, the most gw sends inline.`, 'input', 'file_too_large');
    const chunks: Buffer[] = [];
    for await (const chunk of call.services.files.read(workspace, id)) chunks.push(chunk);
    loaded.set(id, { bytes: Buffer.concat(chunks), filename: record.filename });
  }
  return loaded;
}

function looksLikeText(bytes: Buffer): boolean {
  if (bytes.includes(0)) return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** The part's bytes, name and declared media type. */
function contentOf(part: InputFilePart, files: LoadedFiles, param: string): { bytes: Buffer; filename: string; mediaType?: string } {
  if (part.file_data) {
    const data = DATA_URL.exec(part.file_data);
    return { bytes: Buffer.from(data ? data[2]! : part.file_data, 'base64'), filename: part.filename ?? '', ...(data ? { mediaType: data[1]!.toLowerCase() } : {}) };
  }
  if (part.file_id) {
    const file = files.get(part.file_id)!;
    return { bytes: file.bytes, filename: part.filename ?? file.filename };
  }
  if (part.file_url) throw new ValidationError('gw does not fetch file_url: send the file as file_data (base64) or upload it to /v1/files and send its file_id', `${param}.file_url`);
  throw new ValidationError('input_file needs file_data or file_id', param);
}

export function chatFilePart(part: InputFilePart, files: LoadedFiles, param: string): ChatFilePart {
  const { bytes, filename, mediaType } = contentOf(part, files, param);
  if (bytes.length > MAX_FILE_BYTES) throw new ValidationError(`input_file is larger than ${MAX_FILE_BYTES} bytes, the most gw sends inline`, param, 'file_too_large');
  const pdf = mediaType === 'application/pdf' || bytes.subarray(0, 5).toString('latin1') === '%PDF-';
  if (pdf) return { type: 'file', file: { file_data: `data:application/pdf;base64,${bytes.toString('base64')}`, ...(filename ? { filename } : {}) } };
  const text = (mediaType?.startsWith('text/') || mediaType === 'application/json' || TEXT_NAME.test(filename) || !mediaType) && looksLikeText(bytes);
  if (!text) throw new ValidationError(`input_file${filename ? ` '${filename}'` : ''} is neither a PDF nor text: gw sends only those to models`, param, 'unsupported_file_type');
  const name = filename ? ` name="${filename.replace(/"/g, '')}"` : '';
  return { type: 'text', text: `<file${name}>\n${bytes.toString('utf8')}\n</file>` };
}
