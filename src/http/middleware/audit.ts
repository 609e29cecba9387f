import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Middleware } from 'koa';
import type { AuditCapture } from '../../monitor/audit-capture.js';
import type { AuditEntry } from '../../monitor/audit-entry.js';
import type { AppContext, AppState } from '../context.js';
import { newRequestId } from './request-id.js';

/** Orchestrator probes and the Prometheus scrape: every few seconds, and nobody's request. */
const UNAUDITED = new Set(['/livez', '/readyz', '/metrics']);

/** The console's page and bundles are files, not requests of anybody's: its API calls are audited. */
function isConsoleFile(path: string): boolean {
  return path === '/console' || path.startsWith('/console/');
}

/** The status of a request whose client closed the connection before its answer (nginx's "client closed request"). */
const CLIENT_CLOSED_REQUEST = 499;

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
 *
 * A client that hangs up before its answer leaves an entry too, with status 499, handed over
 * the moment the connection closes: the request may have been admitted, metered and set to work
 * (a job runs on for up to its time limit), and waiting for that work to end would leave it
 * unrecorded all that time, and for good if the process stopped meanwhile. What the service
 * would have answered is not known then; the entry's response time is the time to the hang-up.
 * The work's own end is not recorded again.
 */
export function audit(capture: AuditCapture, region: string): Middleware<AppState> {
  return async (ctx, next) => {
    if (UNAUDITED.has(ctx.path) || isConsoleFile(ctx.path)) return next();
    let abandoned = false;
    const onClose = () => {
      abandoned = true;
      void capture.record({ ...entryOf(ctx, 0, undefined, region), status: CLIENT_CLOSED_REQUEST });
    };
    ctx.res.once('close', onClose);
    try {
      await next();
    } finally {
      ctx.res.off('close', onClose);
      if (!abandoned) await recordAnswer(ctx, capture, region);
    }
  };
}

/** Hands over the entry of the answer about to be sent (a streamed one's once the stream ends). */
async function recordAnswer(ctx: AppContext, capture: AuditCapture, region: string): Promise<void> {
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
    // A failure answered in a vendor's format has no envelope to read its code from.
    errorCode: ctx.state.failure?.code ?? error?.code ?? null,
    errorParameter: ctx.state.failure ? ctx.state.failure.parameter : typeof error?.details?.parameter === 'string' ? error.details.parameter : null,
    extra: ctx.state.audit ?? null,
  };
}
