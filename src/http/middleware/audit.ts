import type { Middleware } from 'koa';
import type { AuditWriter } from '../../monitor/audit-writer.js';
import type { AppState } from '../context.js';

/**
 * One audit row per request to an authenticated endpoint, refused ones included (a 401 has no
 * principal, a 403 or 429 has one), written when the response has been sent so it records the
 * final status and size, whichever stage produced them. Each row carries the account and mode
 * (live or test) of its key, so sandbox traffic never shows up among live entries.
 */
export function audit(writer: AuditWriter, region: string): Middleware<AppState> {
  return async (ctx, next) => {
    if (ctx.state.route?.scope) {
      ctx.res.once('finish', () => {
        const principal = ctx.state.principal;
        writer.record({
          requestId: ctx.state.requestId,
          occurredAt: new Date(),
          principalId: principal?.id ?? null,
          accountId: principal?.accountId ?? null,
          mode: principal?.mode ?? null,
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
