import { writeSync } from 'node:fs';
import { destination, pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

/** Loggers made by createLogger: their lines have a known shape (no bindings, hooks or serialisers). */
const ownLoggers = new WeakSet<Logger>();

export function createLogger(level: string): Logger {
  const logger = pino({ level, base: undefined, timestamp: pino.stdTimeFunctions.isoTime }, standardOutput());
  ownLoggers.add(logger);
  return logger;
}

type LineLevel = 'debug' | 'info' | 'warn' | 'error';

/**
 * One kind of line written often (the request log line): `write(fields, msg)` writes what
 * `logger[level](fields, msg)` would. For a logger made by createLogger the line is built with one
 * JSON.stringify of the fields, in pino's shape (level, time, the fields, msg), instead of pino's
 * property-by-property serialiser, which was most of the line's cost on the chat path; any other
 * logger (a test's, a child with bindings) logs through pino.
 */
export function lineWriter(logger: Logger, level: LineLevel): (fields: Record<string, unknown>, msg: string) => void {
  if (!ownLoggers.has(logger)) return (fields, msg) => logger[level](fields, msg);
  const levelValue = logger.levels.values[level]!;
  const out = standardOutput();
  return (fields, msg) => {
    // The logger's level may be changed at run time: checked as pino checks it.
    if (logger.levelVal > levelValue) return;
    const json = JSON.stringify(fields);
    const inner = json.length > 2 ? `${json.slice(1, -1)},` : '';
    out.write(`{"level":${levelValue},"time":"${new Date().toISOString()}",${inner}"msg":${JSON.stringify(msg)}}\n`);
  };
}

let shared: DestinationStream | undefined;

/** How long a line may wait for others to leave with it. */
const HOLD_MS = 10;

/**
 * Standard output for every logger of the process, asynchronous like pino's own default (a slow
 * reader never stalls the event loop), but the lines of up to HOLD_MS leave in one write. With a
 * request log line per gateway call, a write per line cost 5-9% of the chat path's event-loop
 * time (`BENCH_PROFILE=1`, docs/performance.md). Lines still held when the process exits are
 * written synchronously then, as pino does with what its stream holds.
 */
function standardOutput(): DestinationStream {
  if (shared) return shared;
  const fd = process.stdout.fd || 1;
  const out = destination({ dest: fd, sync: false });
  let held: string[] = [];
  let scheduled = false;
  const handOver = () => {
    scheduled = false;
    if (!held.length) return;
    const lines = held.length === 1 ? held[0]! : held.join('');
    held = [];
    out.write(lines);
  };
  // After what the stream already holds (pino flushes it on exit too; a second flush writes nothing).
  process.once('exit', () => {
    try {
      out.flushSync();
      if (held.length) writeSync(fd, held.join(''));
    } catch {
      // Nothing more can be done for standard output while exiting.
    }
  });
  shared = {
    write(line: string) {
      held.push(line);
      if (!scheduled) {
        scheduled = true;
        // Unreferenced: an otherwise finished process exits at once, and the exit hook writes what is held.
        setTimeout(handOver, HOLD_MS).unref();
      }
    },
  };
  return shared;
}
