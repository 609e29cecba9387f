import type { ParameterizedContext } from 'koa';
import type { Caller, Principal } from '../auth/principal.js';
import type { RefusedKey } from '../auth/authenticator.js';
import type { Session } from '../auth/sessions.js';
import type { RouteDoc } from './openapi.js';

/** What the middleware chain learns about a request, in the order it learns it. */
export interface AppState {
  requestId: string;
  startedAt: number;
  clientIp: string;
  /** scheme://host as the client addressed us (forwarded headers from trusted proxies honoured). */
  origin: string;
  /** The matched route (undefined for 404 and 405). */
  route?: RouteDoc;
  principal?: Principal;
  /** The console session the request was authenticated with (no key sent), with its cookie's token. */
  session?: { token: string; session: Session };
  /** A key that was presented and exists but was refused: its account still owns the audit entry. */
  refusedKey?: RefusedKey;
  /** Endpoint-specific audit fields (query_hash, sources_analyzed, ...). */
  audit?: Record<string, unknown>;
  /** true: answered from the result cache; false: looked there and found nothing; undefined: did not look. */
  cacheHit?: boolean;
  /** The catalogued error the request failed with, whatever format its body takes (audit and metrics read it). */
  failure?: { code: string; parameter: string | null };
}

export type AppContext = ParameterizedContext<AppState>;

/** When the request arrived, epoch ms: deadlines (options.timeout) count from there, not from the handler. */
export function arrivedAt(ctx: AppContext): number {
  return Date.now() - (performance.now() - ctx.state.startedAt);
}

/** The authenticated caller of a route with a scope, as services take it. */
export function caller(ctx: AppContext): Caller {
  return { principal: ctx.state.principal!, requestId: ctx.state.requestId };
}

/** The success envelope of section 1: every 200 carries success, data and the request id. */
export function respond(ctx: AppContext, data: unknown): void {
  ctx.status = 200;
  ctx.body = { success: true, data, request_id: ctx.state.requestId };
}
