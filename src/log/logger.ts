import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * Lines wait here while stdout cannot take them (a log collector that stopped reading); past
 * this they are dropped rather than held, so a stuck reader never grows the heap without bound.
 */
const MAX_UNWRITTEN_BYTES = 16 * 1024 * 1024;

/**
 * Structured JSON logs on stdout; a line about a request carries its request_id.
 *
 * Written asynchronously: with pino's default, a synchronous write per line, a process whose
 * stdout pipe is full (a log collector reading slower than a busy API logs) stops in the write
 * and every request waits behind it; the cached-search benchmark spent a third of the API's time
 * so. Lines logged while a write is under way go out together in the next one. What is unwritten
 * at exit is flushed synchronously (pino registers that); a `kill -9` loses at most the lines
 * not yet written.
 */
export function createLogger(level: string, role: string): Logger {
  return pino(
    {
      level,
      base: { role, pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: ['req.headers.authorization', 'req.headers["x-api-key"]'], remove: true },
    },
    pino.destination({ dest: 1, sync: false, maxLength: MAX_UNWRITTEN_BYTES }),
  );
}
