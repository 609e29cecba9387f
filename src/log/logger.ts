import { pino, type Logger } from 'pino';

export type { Logger };

/** Structured JSON logs on stdout; every line of a request carries its request_id (child loggers). */
export function createLogger(level: string, role: string): Logger {
  return pino({
    level,
    base: { role, pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    redact: { paths: ['req.headers.authorization', 'req.headers["x-api-key"]'], remove: true },
  });
}
