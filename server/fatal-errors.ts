import type { Logger } from '../core/logger.js';

/** How long the queued request logs may take to be written before a failing process exits anyway. */
const FATAL_EXIT_MS = 3000;

/**
 * An error that nothing caught (a thrown exception, a rejected promise) is a bug, and the process's
 * state can no longer be trusted: it is logged with its stack and the process exits with code 1, so
 * the supervisor starts a clean one. It is never swallowed. Before exiting, `beforeExit` (stop
 * accepting, write the queued request logs) gets a few seconds; a second fault meanwhile is logged too.
 */
export function exitOnUncaughtErrors(logger: Logger, beforeExit: () => Promise<void>): void {
  let exiting = false;
  const onFatal = (origin: 'uncaughtException' | 'unhandledRejection') => (error: unknown) => {
    logger.fatal({ err: error instanceof Error ? { type: error.name, message: error.message, stack: error.stack } : { message: String(error) }, origin }, 'gw stops: an error nothing handled (a bug in gw; please report it with this line)');
    if (exiting) return;
    exiting = true;
    process.exitCode = 1;
    const deadline = new Promise<void>((resolve) => setTimeout(resolve, FATAL_EXIT_MS).unref());
    void Promise.race([beforeExit().catch(() => undefined), deadline]).finally(() => process.exit(1));
  };
  process.on('uncaughtException', onFatal('uncaughtException'));
  process.on('unhandledRejection', onFatal('unhandledRejection'));
}
