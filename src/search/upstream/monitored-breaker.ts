/** A circuit breaker whose state the sev_upstream_circuit_state gauge follows. */
import type { Config } from '../../config.js';
import type { Metrics } from '../../metrics/metrics.js';
import { CircuitBreaker, type CircuitState } from './circuit-breaker.js';

const GAUGE_VALUE: Readonly<Record<CircuitState, number>> = { closed: 0, half_open: 1, open: 2 };

export function monitoredBreaker(engine: string, settings: Config['upstreamBreaker'], metrics: Metrics): CircuitBreaker {
  const labels = { engine };
  metrics.upstreamCircuitState.set(labels, GAUGE_VALUE.closed);
  return new CircuitBreaker({
    failureThreshold: settings.failures,
    windowMs: settings.windowMs,
    cooldownMs: settings.cooldownMs,
    onStateChange: (state) => metrics.upstreamCircuitState.set(labels, GAUGE_VALUE[state]),
  });
}
