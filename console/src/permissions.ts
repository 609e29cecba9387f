import type { Session } from './types.js';

/**
 * Which pages a session may use, from what GET /v1/session says (docs/teams-and-sso.md, Roles):
 * the API decides every request anyway; this only hides pages that would answer 403.
 */
export function canManageKeys(session: Session): boolean {
  if (session.member) return session.member.role !== 'researcher';
  return session.permissions.includes('admin');
}

export function canMonitor(session: Session): boolean {
  return session.permissions.includes('monitor');
}

/** Teams and SSO: the account's admins only. */
export function isAdmin(session: Session): boolean {
  if (session.member) return session.member.role === 'admin';
  return session.permissions.includes('admin');
}
