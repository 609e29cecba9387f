import type { Middleware } from 'koa';
import type { AuditWriter } from '../../monitor/audit-writer.js';
import type { AppState } from '../context.js';

/**
 * One audit row per authenticated request, written when the response has been sent so it
 * records the final status and size, whichever stage produced them. Requests refused before
 * authentication belong to no key and are visible in the access log and metrics instead.
 */
export function audit(writer: AuditWriter, region: string): Middleware<AppState> {
  return async (ctx, next) => {
    const principal = ctx.state.principal;
    if (principal) {
      ctx.res.once('finish', () => {
        writer.record({
          requestId: ctx.state.requestId,
          occurredAt: new Date(),
          principalId: principal.id,
          method: ctx.method,
          endpoint: ctx.state.route?.path ?? ctx.path,
          status: ctx.status,
          responseTimeMs: Math.round(performance.now() - ctx.state.startedAt),
          ipAddress: ctx.state.clientIp,
          userAgent: ctx.get('User-Agent') || null,
          requestSize: Number(ctx.get('Content-Length')) || 0,
          responseSize: ctx.response.length ?? 0,
          cacheHit: ctx.state.cacheHit ?? false,
          region,
          errorCode: ctx.status >= 400 ? ((ctx.body as { error?: { code?: string } } | undefined)?.error?.code ?? null) : null,
          extra: ctx.state.audit ?? null,
        });
      });
    }
    await next();
  };
}
