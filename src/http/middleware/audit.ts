import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Middleware } from 'koa';
import type { AuditCapture } from '../../monitor/audit-capture.js';
import type { AuditEntry } from '../../monitor/audit-entry.js';
import type { AppContext, AppState } from '../context.js';
import { newRequestId } from './request-id.js';

/** Orchestrator probes and the Prometheus scrape: every few seconds, and nobody's request. */
const UNAUDITED = new Set(['/livez', '/readyz', '/metrics']);

interface ErrorBody {
  error?: { code?: string; details?: { parameter?: unknown } };
}

/**
 * One audit entry per request, success or error, authenticated or not (a refused key is what an
 * operator looks for), handed to the capture before the response leaves: once a client can see
 * an answer, its entry is in Redis and survives this process. Sits outside the error envelope so
 * it sees the status and body every stage produced. The JSON body is serialised here, once, to
 * know its size (Koa would serialise it again to send it otherwise). A streamed body (an export)
 * is counted as it flows and its entry handed over when the stream ends.
 */
export function audit(capture: AuditCapture, region: string): Middleware<AppState> {
  return async (ctx, next) => {
    if (UNAUDITED.has(ctx.path)) return next();
    try {
      await next();
    } finally {
      // Koa answers a throw that escaped every stage itself; with the envelope in place none does.
      const body = ctx.body as unknown;
      if (body instanceof Readable) {
        let bytes = 0;
        const counter = new Transform({
          transform(chunk: Buffer, _encoding, done) {
            bytes += chunk.length;
            done(null, chunk);
          },
        });
        pipeline(body, counter).catch(() => undefined);
        ctx.body = counter;
        ctx.res.once('close', () => void capture.record(entryOf(ctx, bytes, undefined, region)));
      } else {
        const json = body !== null && typeof body === 'object' && !Buffer.isBuffer(body);
        const error = json && ctx.status >= 400 ? (body as ErrorBody).error : undefined;
        if (json) ctx.body = JSON.stringify(body);
        await capture.record(entryOf(ctx, ctx.response.length ?? 0, error, region));
      }
    }
  };
}

function entryOf(ctx: AppContext, responseSize: number, error: ErrorBody['error'], region: string): AuditEntry {
  const principal = ctx.state.principal;
  const owner = principal ?? ctx.state.refusedKey;
  const requestId = ctx.state.requestId;
  return {
    // A client may bring its own request id, and reuse it: the entry's own id is always ours.
    entryId: requestId === ctx.get('X-Request-Id') ? newRequestId() : requestId,
    requestId,
    occurredAt: new Date(),
    principalId: owner?.id ?? null,
    accountId: owner?.accountId ?? null,
    mode: owner?.mode ?? null,
    method: ctx.method,
    endpoint: ctx.state.route?.path ?? ctx.path,
    status: ctx.status,
    responseTimeMs: Math.round(performance.now() - ctx.state.startedAt),
    ipAddress: ctx.state.clientIp ?? ctx.request.socket.remoteAddress ?? '',
    userAgent: ctx.get('User-Agent') || null,
    requestSize: Number(ctx.get('Content-Length')) || 0,
    responseSize,
    cacheHit: ctx.state.cacheHit ?? false,
    region,
    errorCode: error?.code ?? null,
    errorParameter: typeof error?.details?.parameter === 'string' ? error.details.parameter : null,
    extra: ctx.state.audit ?? null,
  };
}
