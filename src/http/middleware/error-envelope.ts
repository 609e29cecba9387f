import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import { ApiError, ERROR_CATALOGUE } from '../errors.js';
import type { AppState } from '../context.js';

/**
 * Renders every failure as the error envelope of section 7.1. An ApiError keeps its code; any
 * other exception is an internal error: the client sees only an incident id, the log keeps
 * the stack under the same id.
 */
export function errorEnvelope(): Middleware<AppState> {
  return async (ctx, next) => {
    try {
      await next();
    } catch (thrown) {
      const error = thrown instanceof ApiError ? thrown : internal(thrown);
      const spec = ERROR_CATALOGUE[error.code];
      if (error.status >= 500) ctx.state.log.error({ err: error.cause ?? thrown, code: error.code, details: error.details }, 'request failed');
      ctx.status = error.status;
      ctx.set(error.headers);
      ctx.body = {
        success: false,
        error: {
          code: error.code,
          message: error.message,
          ...(error.details ? { details: error.details } : {}),
          ...('suggestion' in spec ? { suggestion: spec.suggestion } : {}),
          documentation: `${ctx.state.origin ?? ''}/docs/errors#${error.code}`,
        },
        request_id: ctx.state.requestId,
        timestamp: new Date().toISOString(),
      };
    }
  };
}

function internal(thrown: unknown): ApiError {
  return new ApiError('INTERNAL_SERVER_ERROR', { incident_id: randomUUID() }, undefined, { cause: thrown });
}
