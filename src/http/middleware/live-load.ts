import type { Middleware } from 'koa';
import type { LiveRecorder } from '../../monitor/live-recorder.js';
import type { AppState } from '../context.js';

/** Infrastructure's probes and scrapes, not API traffic: left out of the request figures. */
const PROBES: ReadonlySet<string> = new Set(['/livez', '/readyz', '/metrics']);

/**
 * Counts every request for the live figures (GET /v1/metrics/live, /v1/health): in flight while
 * it runs, then its final status, time, account and cache outcome, in memory; the recorder
 * shares them through Redis once a second, never on the request's path.
 */
export function liveLoad(live: LiveRecorder): Middleware<AppState> {
  return async (ctx, next) => {
    live.begin();
    try {
      await next();
    } finally {
      live.end();
      const route = ctx.state.route?.path;
      if (route === undefined || !PROBES.has(route)) {
        // As the audit log files them: a key that exists but was refused counts for its account.
        const owner = ctx.state.principal ?? ctx.state.refusedKey;
        live.record({
          accountId: owner?.accountId ?? null,
          mode: owner?.mode ?? null,
          route,
          status: ctx.status,
          seconds: (performance.now() - ctx.state.startedAt) / 1000,
          cacheHit: ctx.state.cacheHit,
        });
      }
    }
  };
}
