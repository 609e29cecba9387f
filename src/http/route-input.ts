import { validateBody, validateQuery } from '../schema/request-validator.js';
import type { AppContext } from './context.js';
import type { Route, RouteInput } from './routes/route.js';

/**
 * The one place requests are validated: the body against the route's `bodyEnvelope` or `body`
 * schema, the query string against its `query` schema, then the route's own `check`. It runs in
 * the router, after authentication, permission and quotas: a bad body sent with a bad key is a
 * 401, and a request refused earlier is never validated.
 */
export function routeInput(route: Route, ctx: AppContext): RouteInput {
  const bodySchema = route.bodyEnvelope ?? route.body;
  const input: RouteInput = {
    body: bodySchema === undefined ? undefined : validateBody(bodySchema, ctx.request.body),
    query: route.query === undefined ? undefined : validateQuery(route.query, ctx.query),
  };
  route.check?.(input);
  return input;
}
