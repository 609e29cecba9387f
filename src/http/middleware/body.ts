import type { Middleware } from 'koa';
import bodyParser from 'koa-bodyparser';
import { ApiError } from '../../errors/catalogue.js';
import type { AppState } from '../context.js';
import { jsonErrorPosition } from '../json-error-position.js';
import { checkJsonShape } from '../../schema/json-shape.js';

const MB = 1024 * 1024;

/** Rounded up, so a body a few bytes over the limit never reads as exactly the limit. */
function megabytes(bytes: number): number {
  return Math.ceil((bytes / MB) * 100) / 100;
}

/**
 * Request bodies: JSON only (an HTML form on the routes that say so: the SAML assertion consumer,
 * posted by the browser from the identity provider), at most `maxBytes`. An oversized declared length is refused before
 * a byte is read; a chunked body is cut off as soon as it passes the limit, so memory stays
 * bounded. A syntax error names its line and column. A parsed body nested too deep or holding
 * ill-formed Unicode is refused before anything else reads it (schema/json-shape.ts).
 */
export function body(maxBytes: number): Array<Middleware<AppState>> {
  const guard: Middleware<AppState> = async (ctx, next) => {
    const length = ctx.get('Content-Length');
    const hasBody = (length !== '' && length !== '0') || ctx.get('Transfer-Encoding') !== '';
    if (!hasBody) return next();
    const form = ctx.state.route?.form === true;
    if (form ? !ctx.is('application/x-www-form-urlencoded') : !ctx.is('application/json', 'application/*+json')) {
      throw new ApiError('UNSUPPORTED_MEDIA_TYPE', { provided: ctx.get('Content-Type') || null, expected: form ? 'application/x-www-form-urlencoded' : 'application/json' });
    }
    if (length !== '' && Number(length) > maxBytes) {
      throw new ApiError('CONTENT_TOO_LARGE', { max_size_mb: megabytes(maxBytes), provided_size_mb: megabytes(Number(length)) });
    }
    await next();
  };

  const parse = bodyParser({
    enableTypes: ['json', 'form'],
    jsonLimit: String(maxBytes),
    formLimit: String(maxBytes),
    strict: true,
    onerror(error: Error & { type?: string; length?: number; received?: number; body?: string }) {
      if (error.type === 'entity.too.large') {
        // For a chunked body the true size is unknown; report how much arrived before the cut-off.
        const provided = error.length ?? error.received ?? maxBytes + 1;
        throw new ApiError('CONTENT_TOO_LARGE', { max_size_mb: megabytes(maxBytes), provided_size_mb: megabytes(provided) });
      }
      if (typeof error.body === 'string') {
        const position = jsonErrorPosition(error.body);
        throw new ApiError('INVALID_JSON', { line: position.line, column: position.column, syntax_error: error.message });
      }
      throw new ApiError('INVALID_PARAMETER', { parameter: 'body', reason: error.message });
    },
  }) as unknown as Middleware<AppState>;

  const shape: Middleware<AppState> = async (ctx, next) => {
    checkJsonShape(ctx.request.body);
    await next();
  };

  return [guard, parse, shape];
}
