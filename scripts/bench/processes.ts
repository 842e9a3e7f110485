import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ReadyMessage } from './child-ipc.js';
import type { LoadJob, LoadResult } from './load-generator.js';

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * Runs one load job in its own process (load-generator.ts), so it never shares an event loop with a
 * server; `onWarm` is called when the warm-up ends and the measured part starts.
 */
export function runLoad(job: LoadJob, onWarm?: () => void): Promise<LoadResult> {
  const child = fork(path.join(here, 'load-generator.ts'), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.on('message', (message: LoadResult | { warmedUp: true }) => {
      if ('warmedUp' in message) onWarm?.();
      else resolve(message);
    });
    child.once('exit', (code) => code !== 0 && reject(new Error(`load generator exited with ${code}`)));
    child.send(job);
  });
}

/** Stops the bench's servers and waits until each has exited. */
export function stopAll(children: readonly ChildProcess[]): Promise<void> {
  return Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGTERM');
        }),
    ),
  ).then(() => undefined);
}

/** Resolves with the port a bench server reports once it listens (child-ipc.ts); rejects if it exits first. */
export function readyPort(child: ChildProcess, name: string): Promise<number> {
  return new Promise((resolve, reject) => {
    child.once('message', (message: ReadyMessage) => resolve(message.port));
    child.once('exit', (code) => reject(new Error(`${name} exited with ${code} before it was ready`)));
  });
}

/** Asks a gw child (gw-server.ts) to start or stop its profiler and waits until it has. */
export function profiler(gw: ChildProcess, message: { profile: 'start' } | { profile: 'stop'; file: string }): Promise<void> {
  return new Promise((resolve) => {
    gw.once('message', () => resolve());
    gw.send(message);
  });
}

/** The Node flags `make run` starts gw with (the Makefile's NODE_FLAGS); both gw and the bare proxy get them. */
export function nodeFlags(): string[] {
  return (process.env.GW_NODE_FLAGS ?? '').split(' ').filter(Boolean);
}

/**
 * The prompt the prompt-completion row runs: it renders to exactly CHAT_BODY's request, so the
 * row against gw's chat row is what addressing, resolving and rendering a prompt add.
 */
export const BENCH_PROMPT = { name: 'bench-prompt', slug: 'bench-prompt', model: 'gpt-4o-mini', string: [{ role: 'user', content: 'Say {{what}}.' }] };
export const PROMPT_BODY = JSON.stringify({ variables: { what: 'hello' } });

/** Saves the bench prompt in gw (the first request resolves and caches it, as in production). */
export async function savePrompt(port: number, adminKey: string): Promise<void> {
  const response = await fetch(`http://127.0.0.1:${port}/v1/prompts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-gw-api-key': adminKey },
    body: JSON.stringify(BENCH_PROMPT),
  });
  if (response.status !== 201) throw new Error(`saving the bench prompt: ${response.status} ${await response.text()}`);
}

/** The chat request every bench sends, and the headers for the upstream/proxy and for gw. */
export const CHAT_BODY = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello.' }] });
/** The same call streamed, usage asked for (the fake upstream answers it as server-sent events). */
export const STREAM_BODY = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello.' }], stream: true, stream_options: { include_usage: true } });
/** The embeddings row's request: floats, as gw always asks its provider for them. */
export const EMBEDDINGS_BODY = JSON.stringify({ model: 'text-embedding-3-small', input: 'Say hello.', encoding_format: 'float' });
/** The Responses call the responses row sends: gw translates it to exactly CHAT_BODY's request (store false: no stored row). */
export const RESPONSES_BODY = JSON.stringify({ model: 'gpt-4o-mini', input: 'Say hello.', store: false });
/** The Messages call the messages rows send (what an Anthropic client sends for CHAT_BODY's question). */
export const MESSAGES_BODY = JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 256, messages: [{ role: 'user', content: 'Say hello.' }] });
/** The same call translated by gw for an OpenAI-type upstream (the chat rows' upstream answers it). */
export const TRANSLATED_MESSAGES_BODY = JSON.stringify({ model: 'gpt-4o-mini', max_tokens: 256, messages: [{ role: 'user', content: 'Say hello.' }] });
export const ANTHROPIC_HEADERS = { 'content-type': 'application/json', 'x-api-key': 'sk-ant-bench', 'anthropic-version': '2023-06-01' };
export const PLAIN_HEADERS = { 'content-type': 'application/json', authorization: 'Bearer sk-bench' };

export function gwHeaders(adminKey: string, upstreamPort: number): Record<string, string> {
  return { ...PLAIN_HEADERS, 'x-gw-api-key': adminKey, 'x-gw-provider': 'openai', 'x-gw-custom-host': `http://127.0.0.1:${upstreamPort}/v1` };
}

/** The Messages door to an Anthropic upstream: the gw key in x-gw-api-key, the provider key as Authorization. */
export function gwAnthropicHeaders(adminKey: string, upstreamPort: number): Record<string, string> {
  return { ...PLAIN_HEADERS, 'anthropic-version': '2023-06-01', 'x-gw-api-key': adminKey, 'x-gw-provider': 'anthropic', 'x-gw-custom-host': `http://127.0.0.1:${upstreamPort}` };
}

/** gw's environment in a bench: SQLite in `dataDir`, request logs on, the fake upstream's loopback host trusted. */
export function gwEnv(dataDir: string, adminKey: string): Record<string, string> {
  return { GW_DATA_DIR: dataDir, GW_ADMIN_API_KEY: adminKey, GW_LOG_LEVEL: 'info', TRUSTED_CUSTOM_HOSTS: '127.0.0.1' };
}
