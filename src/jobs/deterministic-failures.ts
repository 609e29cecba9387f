/**
 * Failures a job's next attempt would meet again, among the unexpected ones (an ApiError says for
 * itself whether a retry can help). Their input is at fault, not the moment: retrying would only
 * repeat the work (fetch the page again, fill a pool thread again) and delay the answer. Anything
 * not listed here (a network error, a dependency away, a bug whose cause is unknown) may pass on a
 * later attempt and keeps being retried.
 */
import { TaskLimitError } from '../pool/pool.js';

export function isDeterministicFailure(error: unknown): boolean {
  // The pool stopped the task at its time or memory limit: the same input takes as long, or as much, again.
  if (error instanceof TaskLimitError) return true;
  return isSqlDataException(error);
}

/**
 * MySQL's SQLSTATE class 22, "data exception": a value the column cannot hold (a date out of
 * DATETIME's range, a string too long, a number out of range). The same statement fails again.
 */
function isSqlDataException(error: unknown): boolean {
  const sqlState = (error as { sqlState?: unknown } | null)?.sqlState;
  return typeof sqlState === 'string' && sqlState.startsWith('22');
}
