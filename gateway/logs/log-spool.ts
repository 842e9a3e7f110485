import { appendFileSync, mkdirSync, readdirSync, readFileSync, statSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import type { RequestLogEntry } from '../../core/request-log.js';

/**
 * Request log entries the store could not take in time, on disk in the data directory: what the
 * queue cannot hold in memory while the store is down or behind goes here instead of being dropped,
 * and comes back to the queue, oldest file first, once the store has caught up. Files left by a
 * stop during an outage are read again at the next start. Each file is one spill (JSON lines).
 * Entries read back are in the queue like any other (a hard crash loses the queue, as ever).
 */
export class LogSpool {
  private files: string[];
  private seq = 0;
  /** Bytes and entries on disk now. */
  bytes = 0;
  entries = 0;

  constructor(
    private readonly dir: string,
    private readonly maxBytes: number,
  ) {
    mkdirSync(dir, { recursive: true });
    this.files = readdirSync(dir).filter((name) => name.endsWith('.jsonl')).sort();
    for (const name of this.files) {
      const text = readFileSync(path.join(dir, name), 'utf8');
      this.bytes += statSync(path.join(dir, name)).size;
      this.entries += text.split('\n').filter(Boolean).length;
    }
  }

  /** When the oldest file was written (epoch ms), undefined when empty. */
  get oldestAt(): number | undefined {
    return this.files.length ? Number(this.files[0]!.split('-')[0]) : undefined;
  }

  get isEmpty(): boolean {
    return this.files.length === 0;
  }

  /** Writes entries to a new file; false (nothing written) when that would pass the size cap. */
  write(entries: readonly RequestLogEntry[]): boolean {
    const text = entries.map((entry) => JSON.stringify(entry)).join('\n') + '\n';
    const size = Buffer.byteLength(text);
    if (this.bytes + size > this.maxBytes) return false;
    // Names sort in spill order: time, then a sequence within this process.
    const name = `${String(Date.now()).padStart(15, '0')}-${process.pid}-${String(this.seq++).padStart(8, '0')}.jsonl`;
    appendFileSync(path.join(this.dir, name), text);
    this.files.push(name);
    this.bytes += size;
    this.entries += entries.length;
    return true;
  }

  /** The oldest file's entries, the file removed; undefined when the spool is empty. */
  takeOldest(): RequestLogEntry[] | undefined {
    const name = this.files.shift();
    if (!name) return undefined;
    const file = path.join(this.dir, name);
    const text = readFileSync(file, 'utf8');
    unlinkSync(file);
    this.bytes -= Buffer.byteLength(text);
    const entries = text.split('\n').filter(Boolean).map((line) => JSON.parse(line) as RequestLogEntry);
    this.entries -= entries.length;
    return entries;
  }
}
