/**
 * One abort signal for a whole fetch: fires at the deadline or when the caller cancels.
 *
 * Not AbortSignal.any([AbortSignal.timeout(), callerSignal]): on Node 20 every any() call
 * leaves an entry behind on its source signals, so a long-lived caller signal (a worker's
 * shutdown signal handed to every fetch) would grow without bound. Here dispose() undoes all.
 */
export interface FetchSignal {
  readonly signal: AbortSignal;
  /** True once the deadline, not the caller, aborted the fetch. */
  readonly timedOut: boolean;
  /** Stops the timer and detaches from the caller's signal; call when the fetch is over. */
  dispose(): void;
}

export function createFetchSignal(timeoutMs: number, callerSignal?: AbortSignal): FetchSignal {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new DOMException(`timed out after ${timeoutMs} ms`, 'TimeoutError'));
  }, timeoutMs);
  const onCallerAbort = (): void => controller.abort(callerSignal?.reason);
  if (callerSignal?.aborted) onCallerAbort();
  else callerSignal?.addEventListener('abort', onCallerAbort, { once: true });
  return {
    signal: controller.signal,
    get timedOut() {
      return timedOut;
    },
    dispose() {
      clearTimeout(timer);
      callerSignal?.removeEventListener('abort', onCallerAbort);
    },
  };
}

/**
 * Settles as the promise does, or rejects with the signal's reason as soon as it aborts: for
 * waits that cannot be cancelled themselves (a queue slot, a download shared with others).
 * The promise keeps running; its outcome is then ignored.
 */
export function raceSignal<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    void promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
