import Koa from 'koa';
import { Router } from '@koa/router';
import type { AppContext, AppState } from './context.js';
import type { AppDeps } from './deps.js';
import type { RouteDoc } from './openapi.js';
import { parseRanges } from '../net/ip-ranges.js';
import { requestId } from './middleware/request-id.js';
import { observe } from './middleware/observe.js';
import { liveLoad } from './middleware/live-load.js';
import { errorEnvelope } from './middleware/error-envelope.js';
import { httpsGuard } from './middleware/https-guard.js';
import { routeMatch } from './middleware/route-match.js';
import { body } from './middleware/body.js';
import { authenticate, authorize } from './middleware/authenticate.js';
import { AddressLimit, addressLimitHeaders } from './middleware/address-limit.js';
import { rateLimit } from './middleware/rate-limit.js';
import { audit } from './middleware/audit.js';
import { usage } from './middleware/usage.js';
import { ROUTES } from './routes/index.js';
import { routeInput } from './route-input.js';
import { consoleAssets } from './console-assets.js';
import { CONSOLE_DIR } from '../paths.js';

/**
 * The HTTP edge. Middleware order, outermost first, and why:
 *  1. request id    every response, errors included, carries X-Request-Id; logs are keyed by it
 *  2. audit         one entry per request but probes, errors and refusals included, handed to
 *                   Redis before the response leaves (monitor/audit-capture.ts)
 *  3. observe       metrics and access log see the final status of every response; live load
 *                   counts it for the live figures (GET /v1/metrics/live, /v1/health)
 *  4. error envelope turns anything thrown below into the envelope of section 7.1
 *  5. address limit the X-RateLimit-* headers of the caller's address on every response that no
 *                   key's window describes (refused before authentication, public routes)
 *  6. https guard   client address, scheme and Host; plain HTTP is refused before the body is read
 *  7. console       the console's page and bundles under /console (console-assets.ts): no key, no
 *                   body, their own Content-Security-Policy; the API calls they make go through
 *                   everything below like any other
 *  8. route match   404 and 405 before authentication, and the route known to later stages
 *  9. body          JSON only, 10 MB, syntax errors located, at most 64 levels deep, well-formed Unicode
 * 10. authenticate  key (or console session cookie, with its CSRF token on changes) → principal;
 *                   failures counted per client address
 * 11. rate limit    per key over one minute, shared through Redis, X-RateLimit-* headers (so every
 *                   response to a known key carries them, a 403 included)
 * 12. authorize     the route's permission
 * 13. usage         last_used_at; daily and monthly quotas on metered endpoints
 * 14. handler       the input validated against the route's schemas (route-input.ts), then the
 *                   handler of the route stage 8 matched
 */
/** What the router would run for a route: never called, as stage 14 calls the handler itself. */
const UNUSED = (): never => {
  throw new Error('routes are dispatched by the app, not by the router');
};

export function createApp(deps: AppDeps): Koa<AppState> {
  const app = new Koa<AppState>();
  const router = new Router<AppState>();
  const byName = new Map<string, RouteDoc>();
  const handlers = new Map<RouteDoc, (ctx: AppContext) => Promise<void>>();
  for (const route of ROUTES) {
    byName.set(route.operationId, route);
    handlers.set(route, (ctx) => route.handler(ctx, routeInput(route, ctx), deps.services));
    // The router only matches (route match, stage 8); the last stage calls the matched route's handler.
    router.register(route.path, [route.method], UNUSED, { name: route.operationId });
  }

  app.use(requestId());
  if (deps.auditCapture) app.use(audit(deps.auditCapture, deps.config.region));
  app.use(observe(deps.metrics, deps.config.accessLog ? deps.logger : undefined));
  app.use(liveLoad(deps.live));
  app.use(errorEnvelope(deps.config.upgradeUrl, deps.logger));
  const addressLimit = new AddressLimit(deps.redis, deps.config.queuePrefix, deps.config.authFailuresPerMinute);
  app.use(addressLimitHeaders(addressLimit));
  app.use(httpsGuard(deps.config.requireHttps, parseRanges(deps.config.trustedProxies)));
  app.use(consoleAssets(CONSOLE_DIR));
  app.use(routeMatch(router, byName));
  for (const middleware of body(deps.config.maxBodyBytes)) app.use(middleware);
  app.use(authenticate(deps.authenticator, deps.sessions, addressLimit));
  app.use(rateLimit(deps.redis, deps.config.queuePrefix));
  app.use(authorize());
  app.use(usage(deps.usageMeter, deps.usageRecorder, deps.clock, deps.metrics.tenants));
  app.use((ctx) => handlers.get(ctx.state.route!)!(ctx));

  // Errors are rendered by the envelope middleware; Koa's own handler would only log them twice.
  app.silent = true;
  return app;
}
