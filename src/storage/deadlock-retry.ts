/**
 * A transaction that lost a deadlock (or waited too long for a lock) was rolled back by MySQL
 * and may simply run again: index writes, crawl bookkeeping and deletions meet other writers
 * on shared rows. Callers may name further errors that a second run resolves (a unique key
 * another writer just took, which the retry then finds).
 */
const ATTEMPTS = 4;
const BACKOFF_MS = 50;
/** ER_LOCK_DEADLOCK and ER_LOCK_WAIT_TIMEOUT. */
const LOCK_CONFLICTS = ['ER_LOCK_DEADLOCK', 'ER_LOCK_WAIT_TIMEOUT'];

export async function withDeadlockRetry<T>(write: () => Promise<T>, alsoRetried: readonly string[] = []): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      const code = (error as { code?: unknown } | null)?.code;
      if (attempt >= ATTEMPTS || typeof code !== 'string' || !(LOCK_CONFLICTS.includes(code) || alsoRetried.includes(code))) throw error;
      // Jittered, so the two sides of a deadlock do not meet again at once.
      await new Promise((resolve) => setTimeout(resolve, BACKOFF_MS * attempt * (0.5 + Math.random())));
    }
  }
}
