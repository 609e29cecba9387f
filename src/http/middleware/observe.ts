import type { Middleware } from 'koa';
import type { Logger } from '../../log/logger.js';
import type { Metrics } from '../../metrics/metrics.js';
import type { TenantLabels } from '../../metrics/tenant-metrics.js';
import type { Principal } from '../../auth/principal.js';
import type { AppState } from '../context.js';

/**
 * Metrics and the access log wrap everything below them, so they see the final status of every
 * response, including 404s and authentication failures. Routes are labelled by their template
 * (/v1/auth/keys/:id), never by the raw path, to keep label cardinality bounded; error codes
 * come from the one catalogue, so they are bounded too. Requests to authenticated routes are
 * also counted per tenant (account and key; src/metrics/tenant-metrics.ts).
 *
 * The access log (a line per request) is written only when `accessLog` is given (ACCESS_LOG=on):
 * the audit log already keeps every request, durably and with more fields, and a line per request
 * cost a busy process a write and a serialisation per answer for a copy of it. Failures of the
 * service itself (5xx) are logged with their cause whatever it says (error-envelope.ts).
 */
export function observe(metrics: Metrics, accessLog?: Logger): Middleware<AppState> {
  // Children bound to their labels once: prom-client would otherwise hash the label set of every
  // request twice (counter and histogram). Method, route template and status are bounded sets.
  const bound = new Map<string, { requests: { inc(): void }; duration: { observe(value: number): void } }>();
  const series = (method: string, route: string, status: number) => {
    const key = `${method} ${route} ${status}`;
    let children = bound.get(key);
    if (!children) {
      const labels = { method, route, status: String(status) };
      children = { requests: metrics.httpRequests.labels(labels), duration: metrics.httpDuration.labels(labels) };
      bound.set(key, children);
    }
    return children;
  };

  return async (ctx, next) => {
    metrics.httpInFlight.inc();
    try {
      await next();
    } finally {
      metrics.httpInFlight.dec();
      const seconds = (performance.now() - ctx.state.startedAt) / 1000;
      const route = ctx.state.route?.path ?? 'unmatched';
      const children = series(ctx.method, route, ctx.status);
      children.requests.inc();
      children.duration.observe(seconds);
      const code = ctx.status >= 400 ? ctx.state.failure?.code ?? (ctx.body as { error?: { code?: string } } | undefined)?.error?.code : undefined;
      if (code) metrics.httpErrors.inc({ route, code });
      if (ctx.state.route?.scope) {
        const { account, key, mode } = tenantOf(ctx.state.principal);
        metrics.tenants.request({ account, key, mode, status: ctx.status, code, seconds });
      }
      // The line's fields are only gathered when it is written.
      if (accessLog?.isLevelEnabled('info')) {
        accessLog.info(
          {
            request_id: ctx.state.requestId, method: ctx.method, path: ctx.path, status: ctx.status, duration_ms: Math.round(seconds * 1000),
            ip: ctx.state.clientIp, principal_id: ctx.state.principal?.id,
          },
          'request',
        );
      }
    }
  };
}

const ANONYMOUS: TenantLabels = { account: 'anonymous', key: 'anonymous', mode: 'none' };

/** The tenant labels of a request: its key's account, `master` for the master key, `anonymous` before a key is accepted. */
function tenantOf(principal: Principal | undefined): TenantLabels {
  if (!principal) return ANONYMOUS;
  return { account: principal.kind === 'master' ? 'master' : principal.accountId ?? '', key: principal.id, mode: principal.mode };
}
