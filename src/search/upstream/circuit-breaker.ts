/**
 * A circuit breaker for one upstream service. While the service keeps failing, callers are
 * refused at once instead of each waiting for its own time-out: a dead upstream then costs a
 * search nothing, and the upstream is not hammered while it recovers.
 *
 * closed → open after `failureThreshold` consecutive failures within `windowMs` → half-open once
 * `cooldownMs` has passed, where exactly one call (the probe) is let through → closed if it
 * succeeds, open again (a new cool-down) if it fails.
 */
export type CircuitState = 'closed' | 'half_open' | 'open';

export interface CircuitBreakerOptions {
  readonly failureThreshold: number;
  readonly windowMs: number;
  readonly cooldownMs: number;
  /** Called on every change of state, for the state gauge. */
  readonly onStateChange?: (state: CircuitState) => void;
}

/** The verdict on one admitted call; only the first verdict given counts. */
export interface CircuitPermit {
  success(): void;
  failure(): void;
  /** The call ended without telling anything about the upstream (the caller gave up first). */
  release(): void;
}

/**
 * Gives the breaker the verdict of a call and names its outcome for the metrics: a call the
 * caller gave up on (aborted) says nothing about the service, so it is released without a
 * verdict (and counted as a time-out); any other failure counts against the service.
 */
export function settleCall(permit: CircuitPermit, failure?: string): 'ok' | 'timeout' | 'error' {
  if (failure === undefined) {
    permit.success();
    return 'ok';
  }
  if (failure === 'aborted') {
    permit.release();
    return 'timeout';
  }
  permit.failure();
  return failure === 'timeout' ? 'timeout' : 'error';
}

export class CircuitBreaker {
  private current: CircuitState = 'closed';
  /** Times of the failures since the last success, oldest first, at most failureThreshold. */
  private failures: number[] = [];
  private openedAt = 0;
  private probeInFlight = false;
  /**
   * Bumped on every change of state: a verdict from a call admitted under an earlier state is
   * ignored, so a slow call started while closed cannot close a circuit that opened since.
   */
  private generation = 0;

  constructor(private readonly options: CircuitBreakerOptions) {}

  /** The state now; an open circuit whose cool-down is over reads as half-open. */
  state(): CircuitState {
    if (this.current === 'open' && Date.now() - this.openedAt >= this.options.cooldownMs) this.enter('half_open');
    return this.current;
  }

  /** A permit to call the upstream, or undefined when the call must be refused. */
  tryAcquire(): CircuitPermit | undefined {
    const state = this.state();
    if (state === 'open') return undefined;
    if (state === 'half_open') {
      if (this.probeInFlight) return undefined;
      this.probeInFlight = true;
    }
    return this.permit(this.generation, state === 'half_open');
  }

  private permit(generation: number, probe: boolean): CircuitPermit {
    let settled = false;
    const settle = (verdict: () => void): void => {
      if (settled) return;
      settled = true;
      if (probe && generation === this.generation) this.probeInFlight = false;
      if (generation === this.generation) verdict();
    };
    return {
      success: () => settle(() => this.onSuccess()),
      failure: () => settle(() => this.onFailure()),
      release: () => settle(() => undefined),
    };
  }

  private onSuccess(): void {
    this.failures = [];
    if (this.current !== 'closed') this.enter('closed');
  }

  private onFailure(): void {
    const now = Date.now();
    if (this.current === 'half_open') {
      this.open(now);
      return;
    }
    this.failures = this.failures.filter((at) => now - at < this.options.windowMs);
    this.failures.push(now);
    if (this.failures.length >= this.options.failureThreshold) this.open(now);
  }

  private open(now: number): void {
    this.openedAt = now;
    this.failures = [];
    this.enter('open');
  }

  private enter(state: CircuitState): void {
    this.current = state;
    this.generation += 1;
    this.probeInFlight = false;
    this.options.onStateChange?.(state);
  }
}
