import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import { ApiError, suggestionFor } from '../../errors/catalogue.js';
import { dependencyOutage } from '../../errors/dependency-outage.js';
import type { Logger } from '../../log/logger.js';
import type { AppState } from '../context.js';
import { ERROR_CODE_HEADER } from '../vendor-format.js';

/**
 * Renders every failure as the error envelope of section 7.1 (or, on a route that speaks another
 * vendor's API, in that vendor's format: vendor-format.ts). An ApiError keeps its code; MySQL
 * or Redis out of reach is 503 SERVICE_UNAVAILABLE; any other exception is an internal error:
 * the client sees only an incident id, the log keeps the stack under the same id. Errors that invite a plan change get their upgrade_url here, the
 * one place that knows where plans are described (UPGRADE_URL, or this service's /v1/plans).
 */
export function errorEnvelope(upgradeUrl: string | undefined, logger: Logger): Middleware<AppState> {
  return async (ctx, next) => {
    try {
      await next();
    } catch (thrown) {
      const error = thrown instanceof ApiError ? thrown : dependencyOutage(thrown) ?? internal(thrown);
      if (error.status >= 500) {
        logger.error({ request_id: ctx.state.requestId, err: error.cause ?? thrown, code: error.code, details: error.details }, 'request failed');
      }
      const parameter = error.details?.parameter;
      ctx.state.failure = { code: error.code, parameter: typeof parameter === 'string' ? parameter : null };
      ctx.set(error.headers);
      const vendor = ctx.state.route?.vendor;
      if (vendor) {
        const rendered = vendor.render(error, ctx.state.requestId);
        ctx.status = rendered.status;
        ctx.set(ERROR_CODE_HEADER, error.code);
        ctx.body = rendered.body;
        return;
      }
      ctx.status = error.status;
      ctx.body = envelope(error, { requestId: ctx.state.requestId, origin: ctx.state.origin ?? '', upgradeUrl });
    }
  };
}

/** The error envelope of section 7.1 for `error`; also written by the server for what never reaches Koa (server.ts). */
export function envelope(error: ApiError, context: { requestId: string; origin: string; upgradeUrl: string | undefined }): Record<string, unknown> {
  const details = UPGRADABLE.has(error.code)
    ? { ...error.details, upgrade_url: context.upgradeUrl ?? `${context.origin}/v1/plans` }
    : error.details;
  const suggestion = suggestionFor(error.code, details);
  return {
    success: false,
    error: {
      code: error.code,
      message: error.message,
      ...(details ? { details } : {}),
      ...(suggestion !== undefined ? { suggestion } : {}),
      documentation: `${context.origin}/docs/errors#${error.code}`,
    },
    request_id: context.requestId,
    timestamp: new Date().toISOString(),
  };
}

const UPGRADABLE: ReadonlySet<string> = new Set(['INSUFFICIENT_PERMISSIONS', 'MONTHLY_LIMIT_EXCEEDED']);

function internal(thrown: unknown): ApiError {
  return new ApiError('INTERNAL_SERVER_ERROR', { incident_id: randomUUID() }, undefined, { cause: thrown });
}
