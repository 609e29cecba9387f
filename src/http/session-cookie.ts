import { SESSION_COOKIE, type Session } from '../auth/sessions.js';
import type { AppContext } from './context.js';

/**
 * The console session's cookie: HttpOnly (no script reads it), SameSite=Strict (no other site's
 * page sends it), Secure when the client came over HTTPS (directly or through a trusted proxy),
 * for the whole service, until the session's expiry. Written by hand rather than through Koa's
 * cookies, which judge HTTPS by the socket and would refuse Secure behind a TLS-terminating proxy.
 */
export function setSessionCookie(ctx: AppContext, token: string, session: Session): void {
  const expires = new Date(session.expiresAt);
  const maxAge = Math.max(0, Math.floor((expires.getTime() - Date.parse(session.createdAt)) / 1000));
  ctx.append('Set-Cookie', cookie(token, `Expires=${expires.toUTCString()}; Max-Age=${maxAge}`, ctx.state.origin));
}

export function clearSessionCookie(ctx: AppContext): void {
  ctx.append('Set-Cookie', cookie('', 'Expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=0', ctx.state.origin));
}

function cookie(value: string, lifetime: string, origin: string): string {
  return `${SESSION_COOKIE}=${value}; Path=/; ${lifetime}; HttpOnly; SameSite=Strict${origin.startsWith('https:') ? '; Secure' : ''}`;
}
