import type { Middleware } from 'koa';
import type { Metrics } from '../../metrics/metrics.js';
import type { AppState } from '../context.js';

/**
 * Metrics and the access log wrap everything below them, so they see the final status of every
 * response, including 404s and authentication failures. Routes are labelled by their template
 * (/v1/auth/keys/:id), never by the raw path, to keep label cardinality bounded; error codes
 * come from the one catalogue, so they are bounded too.
 */
export function observe(metrics: Metrics): Middleware<AppState> {
  return async (ctx, next) => {
    metrics.httpInFlight.inc();
    try {
      await next();
    } finally {
      metrics.httpInFlight.dec();
      const seconds = (performance.now() - ctx.state.startedAt) / 1000;
      const labels = { method: ctx.method, route: ctx.state.route?.path ?? 'unmatched', status: String(ctx.status) };
      metrics.httpRequests.inc(labels);
      metrics.httpDuration.observe(labels, seconds);
      const code = ctx.status >= 400 ? (ctx.body as { error?: { code?: string } } | undefined)?.error?.code : undefined;
      if (code) metrics.httpErrors.inc({ route: labels.route, code });
      ctx.state.log.info(
        {
          method: ctx.method, path: ctx.path, status: ctx.status, duration_ms: Math.round(seconds * 1000), ip: ctx.state.clientIp,
          principal_id: ctx.state.principal?.id,
        },
        'request',
      );
    }
  };
}
