/**
 * A failure to reach MySQL or Redis, told apart from a bug: the client gets 503
 * SERVICE_UNAVAILABLE (retry later) rather than 500 with an incident id, and a job retries it.
 * Only the shape of the error is read, so this module knows no driver.
 */
import { ApiError } from './catalogue.js';

/** Codes of a connection that failed or could not be made (Node's, and mysql2's own). */
const CONNECTION_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN',
  'PROTOCOL_CONNECTION_LOST', 'PROTOCOL_SEQUENCE_TIMEOUT', 'ER_CON_COUNT_ERROR', 'ER_SERVER_SHUTDOWN',
]);

/** How deep the `cause` chain is followed: a wrapped driver error still counts. */
const MAX_CAUSES = 4;

/** SERVICE_UNAVAILABLE when `error` (or what caused it) is a lost or refused MySQL or Redis connection; otherwise undefined. */
export function dependencyOutage(error: unknown): ApiError | undefined {
  let current = error;
  for (let depth = 0; depth <= MAX_CAUSES && current instanceof Error; depth++) {
    const dependency = unreachable(current);
    if (dependency) {
      return new ApiError('SERVICE_UNAVAILABLE', { estimated_recovery: `when ${dependency} is reachable again`, status_page: '/v1/health' },
        `${dependency} does not answer; retry the request.`, { cause: error });
    }
    current = current.cause;
  }
  return undefined;
}

function unreachable(error: Error): 'MySQL' | 'Redis' | undefined {
  const { code, fatal } = error as Error & { code?: unknown; fatal?: unknown };
  // mysql2 marks the errors that end a connection fatal (refused, reset, lost, too many connections).
  if (fatal === true && typeof code === 'string' && CONNECTION_CODES.has(code)) return 'MySQL';
  // ioredis gives up on a command after its retries (maxRetriesPerRequest), or on a closed connection.
  if (error.name === 'MaxRetriesPerRequestError' || error.message === 'Connection is closed.') return 'Redis';
  return undefined;
}
