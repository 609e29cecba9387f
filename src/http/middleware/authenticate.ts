import type { Middleware, Next } from 'koa';
import { KeyRefusal, type Authenticator } from '../../auth/authenticator.js';
import type { Permission, Principal, Scope } from '../../auth/principal.js';
import type { SessionService } from '../../auth/session-service.js';
import { CSRF_HEADER, csrfMatches, SESSION_COOKIE } from '../../auth/sessions.js';
import { ApiError, type ErrorCode } from '../../errors/catalogue.js';
import type { AppContext, AppState } from '../context.js';
import type { AddressLimit } from './address-limit.js';

/** Methods that change nothing: a session's request with another method must carry its CSRF token. */
const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD']);

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** The key from Authorization: Bearer (preferred) or X-API-Key; undefined when neither is sent. */
export function presentedKey(authorization: string, apiKeyHeader: string): string | undefined {
  if (authorization) {
    const match = BEARER.exec(authorization);
    if (!match) throw new ApiError('INVALID_API_KEY', { reason: 'invalid_api_key' }, 'The Authorization header must have the form "Bearer <key>".');
    return match[1];
  }
  return apiKeyHeader.trim() || undefined;
}

/** The key a client sent in the body field the route names (Tavily's older clients send `api_key`). */
function keyInBody(field: string | undefined, body: unknown): string | undefined {
  if (field === undefined || body === null || typeof body !== 'object') return undefined;
  const value = (body as Record<string, unknown>)[field];
  return typeof value === 'string' && value.trim() ? value.trim() : undefined;
}

/** The qualifier in required_permission: what the route does with its scope. */
function requiredPermission(scope: string, method: string, qualifier: string | undefined): string {
  return `${scope}:${qualifier ?? (method === 'GET' ? 'read' : 'write')}`;
}

/**
 * Establishes who calls every route that declares a scope (the permission itself is checked by
 * `authorize`, after the rate limit, so a refused request still counts and shows its headers). Failed
 * attempts are counted per client address: past AUTH_FAILURES_PER_MINUTE an address gets 429
 * instead of 401 until the minute is over, which caps the database lookups a key-guessing
 * client can cause (valid keys from the same address keep working).
 *
 * Without a key, the console's session cookie is the credential (auth/sessions.ts): its session
 * stands for a key or a team member, and a change made with it (any method but GET and HEAD)
 * must carry the session's CSRF token in X-CSRF-Token. A key sent in a header wins over a cookie.
 */
export function authenticate(authenticator: Authenticator, sessions: SessionService, addressLimit: AddressLimit): Middleware<AppState> {
  return async (ctx, next) => {
    const route = ctx.state.route;
    if (!route?.scope) return route?.credentialRefusal ? credentialChecked(ctx, next, route.credentialRefusal, addressLimit) : next();
    let principal;
    try {
      const secret = presentedKey(ctx.get('Authorization'), ctx.get('X-API-Key')) ?? keyInBody(route.keyInBody, ctx.request.body);
      if (secret) principal = await authenticator.authenticate(secret, ctx.state.clientIp);
      else principal = await sessionPrincipal(ctx, sessions);
    } catch (error) {
      if (error instanceof KeyRefusal) ctx.state.refusedKey = error.key;
      if (error instanceof ApiError && error.status === 401) await countFailure(ctx, addressLimit);
      throw error;
    }
    // No child logger here: it would cost every request; the access log line names the principal.
    ctx.state.principal = principal;
    await next();
  };
}

/**
 * A public route handed a credential of its own (an SSO assertion, an invitation token): its
 * refusal counts as a failed authentication of the address, so guessing tokens there is held to
 * the same budget as guessing keys.
 */
async function credentialChecked(ctx: AppContext, next: Next, refusal: ErrorCode, addressLimit: AddressLimit): Promise<void> {
  try {
    await next();
  } catch (error) {
    if (error instanceof ApiError && error.code === refusal) await countFailure(ctx, addressLimit);
    throw error;
  }
}

/** Counts a failed authentication of the client address; past its budget the failure becomes 429. */
async function countFailure(ctx: AppContext, addressLimit: AddressLimit): Promise<void> {
  const result = await addressLimit.countFailure(ctx.state.clientIp);
  if (!result) return;
  // A refused credential has no window of its own; the headers show the address' failure budget.
  const now = Date.now();
  ctx.set(addressLimit.headers(result.count, now));
  if (result.exceeded) throw addressLimit.exceeded(result.count, now, ctx.state.clientIp);
}

/** The principal of the request's session cookie, its CSRF token checked on a change; MISSING_API_KEY without one. */
async function sessionPrincipal(ctx: AppContext, sessions: SessionService): Promise<Principal> {
  const token = ctx.cookies.get(SESSION_COOKIE);
  if (!token) throw new ApiError('MISSING_API_KEY');
  const { session, principal } = await sessions.authenticate(token, ctx.state.clientIp);
  if (!SAFE_METHODS.has(ctx.method) && !csrfMatches(session, ctx.get(CSRF_HEADER))) throw new ApiError('CSRF_TOKEN_INVALID');
  ctx.state.session = { token, session };
  return principal;
}

/** The scope of routes open to any valid key. */
const AUTHENTICATED = 'authenticated';

/**
 * Refuses a principal that lacks the route's permission. A developer (own_keys) passes the key
 * routes marked ownKeys, where the key service limits it to its own keys; a scope held read-only
 * (a researcher's monitor) passes GET only.
 */
export function authorize(): Middleware<AppState> {
  return async (ctx, next) => {
    const { route, principal } = ctx.state;
    if (route?.scope && route.scope !== AUTHENTICATED && principal) {
      const held = principal.permissions.has(route.scope as Permission) || (route.ownKeys === true && principal.permissions.has('own_keys'));
      if (!held) {
        throw new ApiError('INSUFFICIENT_PERMISSIONS', {
          required_permission: requiredPermission(route.scope, ctx.method, route.permission),
          current_plan: principal.plan,
        }, `${principal.member ? `A ${principal.member.role} of this team` : 'This key'} lacks the ${route.scope} permission.`);
      }
      if (!SAFE_METHODS.has(ctx.method) && principal.readOnly?.has(route.scope as Scope)) {
        throw new ApiError('INSUFFICIENT_PERMISSIONS', {
          required_permission: `${route.scope}:write`,
          current_plan: principal.plan,
        }, `The ${route.scope} scope is read-only for a ${principal.member?.role ?? 'principal like this one'}.`);
      }
    }
    await next();
  };
}
