import type { Middleware } from 'koa';
import type { Layer, Router } from '@koa/router';
import { ApiError } from '../../errors/catalogue.js';
import type { AppState } from '../context.js';
import type { RouteDoc } from '../openapi.js';

type Resolution = { route: RouteDoc; layer: Layer } | { error: () => ApiError };

/**
 * Paths resolved recently, by method and path. Matching tries every route's expression in turn
 * (and @koa/router logs each try through `debug`): a few per cent of a cached search's CPU, for
 * an answer that never changes once the routes are registered. Bounded, and emptied when full,
 * so that paths made up by a client cost memory for a while at most.
 */
const CACHED_PATHS = 1024;

/**
 * Resolves the route before anything else reads the request, so that an unknown path is a 404
 * and a wrong method a 405 (with Allow) whoever asks, and later stages (auth scopes, metrics
 * labels, audit, the handler itself) know which endpoint they serve. The path parameters are
 * read here too: the last stage calls the route's handler without matching again.
 */
export function routeMatch(router: Router<AppState>, byName: ReadonlyMap<string, RouteDoc>): Middleware<AppState> {
  const resolve = (path: string, method: string): Resolution => {
    const matched = router.match(path, method);
    const layer = matched.pathAndMethod.find((l) => l.name && byName.has(l.name));
    if (layer) return { route: byName.get(layer.name!)!, layer };
    if (matched.path.length === 0) return { error: () => new ApiError('NOT_FOUND', { path }, `No endpoint at ${path}.`) };
    const allowed = [...new Set(matched.path.flatMap((l) => l.methods))].sort();
    return {
      error: () => new ApiError('METHOD_NOT_ALLOWED', { method, allowed }, `${method} is not allowed on ${path}.`, { headers: { Allow: allowed.join(', ') } }),
    };
  };
  const cache = new Map<string, Resolution>();
  return async (ctx, next) => {
    const key = `${ctx.method} ${ctx.path}`;
    let resolution = cache.get(key);
    if (!resolution) {
      resolution = resolve(ctx.path, ctx.method);
      if (cache.size >= CACHED_PATHS) cache.clear();
      cache.set(key, resolution);
    }
    if ('error' in resolution) throw resolution.error();
    const { route, layer } = resolution;
    ctx.params = layer.paramNames.length > 0 ? layer.params(ctx.path, layer.captures(ctx.path)) : {};
    ctx.state.route = route;
    await next();
  };
}
