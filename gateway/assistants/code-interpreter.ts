/**
 * code_interpreter in a run: gw offers the model a function tool `code_interpreter({code})` on
 * every provider and runs the Python itself in the sandbox (code-sandbox.ts), with copies of the
 * run's files under /mnt/data: the assistant's and the thread's `tool_resources.code_interpreter
 * .file_ids`, the thread's message attachments for the tool, and the files earlier calls of the
 * run wrote. Files the code writes become gw files (purpose assistants_output); the run's message
 * shows images as `image_file` parts and cites the others (`sandbox:/mnt/data/name` in its text
 * becomes a `file_path` annotation; each is also an attachment of the message).
 */
import { basename } from 'node:path';
import type { Services } from '../../core/services.js';
import type { SandboxFile } from './code-sandbox.js';
import type { Owner } from './thread-writer.js';
import type { MessageObject, RunObject } from './wire.js';

export const CODE_INTERPRETER_FUNCTION = 'code_interpreter';
/** Files larger than this are not copied into the sandbox. */
const MAX_MOUNT_BYTES = 32 * 1024 * 1024;

export interface CodeFile {
  name: string;
  file_id: string;
  image: boolean;
}

export function hasCodeInterpreter(run: RunObject): boolean {
  return run.tools.some((tool) => tool.type === 'code_interpreter');
}

/** The function tool the model sees. */
export const codeInterpreterFunction = {
  type: 'function' as const,
  function: {
    name: CODE_INTERPRETER_FUNCTION,
    description:
      "Runs Python 3 (standard library only, no network) and returns what it prints. The user's files are in /mnt/data; files written to /mnt/data are given to the user: link one as sandbox:/mnt/data/<name>.",
    parameters: { type: 'object', properties: { code: { type: 'string', description: 'The Python code to run.' } }, required: ['code'] },
  },
};

/** The model's `code` argument (a call whose arguments are not JSON runs them as the code). */
export function codeOf(args: string): string {
  try {
    const code = (JSON.parse(args) as { code?: unknown }).code;
    return typeof code === 'string' ? code : '';
  } catch {
    return args;
  }
}

async function mountIds(services: Services, owner: Owner, run: RunObject, messages: readonly MessageObject[]): Promise<string[]> {
  const scope = { workspaceId: owner.workspaceId };
  const assistant = run.assistant_id ? await services.store.assistants.get(scope, run.assistant_id) : undefined;
  const thread = await services.store.assistantThreads.get(scope, run.thread_id);
  const resources = [assistant?.body.tool_resources, thread?.body.tool_resources].flatMap((given) => given?.code_interpreter?.file_ids ?? []);
  const attached = messages.flatMap((message) =>
    (message.attachments ?? []).filter((attachment) => attachment.tools?.some((tool) => tool.type === 'code_interpreter')).map((attachment) => attachment.file_id!),
  );
  return [...new Set([...resources, ...attached])];
}

/** The files the sandbox gets: the run's given files (by their filenames), then the files the run wrote so far. */
export async function sandboxFiles(services: Services, owner: Owner, run: RunObject, messages: readonly MessageObject[], written: readonly CodeFile[]): Promise<SandboxFile[]> {
  const files = new Map<string, SandboxFile>();
  const add = async (id: string, name?: string) => {
    const record = await services.files.get(owner.workspaceId, id).catch(() => undefined);
    // A file deleted since it was named, or too large to copy, is left out.
    if (!record || record.bytes > MAX_MOUNT_BYTES) return;
    const parts: Buffer[] = [];
    for await (const part of services.files.read(owner.workspaceId, id)) parts.push(part);
    const fileName = safeName(name ?? record.filename);
    files.set(fileName, { name: fileName, data: Buffer.concat(parts) });
  };
  for (const id of await mountIds(services, owner, run, messages)) await add(id);
  for (const file of written) await add(file.file_id, file.name);
  return [...files.values()];
}

/** A name under /mnt/data: no directories from the upload's filename. */
function safeName(name: string): string {
  return basename(name).replace(/^\.+/, '') || 'file';
}

/** The sandbox's written files, stored as gw files of the run's workspace. */
export async function storeWritten(services: Services, owner: Owner, written: readonly SandboxFile[]): Promise<CodeFile[]> {
  const stored: CodeFile[] = [];
  for (const file of written) {
    const record = await services.files.write({ organisationId: owner.organisationId, workspaceId: owner.workspaceId, purpose: 'assistants_output', filename: basename(file.name) }, (async function* () {
      yield file.data;
    })());
    stored.push({ name: file.name, file_id: record.id, image: /\.png$/i.test(file.name) || isPng(file.data) });
  }
  return stored;
}

function isPng(data: Buffer): boolean {
  return data.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
}

/** What the model reads: the logs, the error, and the files written. */
export function modelOutput(logs: string, error: string | undefined, files: readonly CodeFile[]): string {
  const parts = [logs.trimEnd()];
  if (error) parts.push(error);
  if (files.length) parts.push(`Files written: ${files.map((file) => `sandbox:/mnt/data/${file.name}`).join(', ')}`);
  const text = parts.filter(Boolean).join('\n');
  return text || '(no output)';
}

/** `file_path` annotations for each `sandbox:/mnt/data/<name>` in the answer that names a file the run wrote. */
export function filePathAnnotations(text: string, files: readonly CodeFile[] | undefined): Array<Record<string, unknown>> {
  if (!files?.length) return [];
  const byName = new Map(files.map((file) => [file.name, file.file_id]));
  const annotations: Array<Record<string, unknown>> = [];
  for (const match of text.matchAll(/sandbox:\/mnt\/data\/([^\s)\]'"`]+)/g)) {
    // A sentence's full stop after the path is not part of the name.
    const name = match[1]!.replace(/[.,;:]+$/, '');
    const fileId = byName.get(name);
    if (!fileId) continue;
    const cited = `sandbox:/mnt/data/${name}`;
    annotations.push({ type: 'file_path', text: cited, start_index: match.index, end_index: match.index + cited.length, file_path: { file_id: fileId } });
  }
  return annotations;
}
