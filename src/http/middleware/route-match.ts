import type { Middleware } from 'koa';
import type { Router } from '@koa/router';
import { ApiError } from '../../errors/catalogue.js';
import type { AppState } from '../context.js';
import type { RouteDoc } from '../openapi.js';

/**
 * Resolves the route before anything else reads the request, so that an unknown path is a 404
 * and a wrong method a 405 (with Allow) whoever asks, and later stages (auth scopes, metrics
 * labels, audit) know which endpoint they serve.
 */
export function routeMatch(router: Router<AppState>, byName: ReadonlyMap<string, RouteDoc>): Middleware<AppState> {
  return async (ctx, next) => {
    const matched = router.match(ctx.path, ctx.method);
    const layer = matched.pathAndMethod.find((l) => l.name && byName.has(l.name));
    if (!layer) {
      if (matched.path.length === 0) throw new ApiError('NOT_FOUND', { path: ctx.path }, `No endpoint at ${ctx.path}.`);
      const allowed = [...new Set(matched.path.flatMap((l) => l.methods))].sort();
      throw new ApiError(
        'METHOD_NOT_ALLOWED',
        { method: ctx.method, allowed },
        `${ctx.method} is not allowed on ${ctx.path}.`,
        { headers: { Allow: allowed.join(', ') } },
      );
    }
    ctx.state.route = byName.get(layer.name!);
    await next();
  };
}
