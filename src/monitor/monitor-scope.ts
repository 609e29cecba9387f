import { operatorOnly, type Principal } from '../auth/principal.js';
import type { Mode } from '../mode.js';
import type { AuditScope } from './audit-range.js';

export interface ScopeQuery {
  account_id?: string;
  mode?: Mode;
}

/**
 * Whose traffic a monitoring read covers. A key reads its own account in its own mode: sandbox
 * keys see sandbox traffic only, live keys live traffic only. The master key names an account
 * (live unless `mode` says test), or names none and reads the whole deployment, requests that
 * no key was accepted for included.
 */
export function monitorScope(actor: Principal, query: ScopeQuery): AuditScope {
  if (actor.permissions.has('operator')) {
    if (query.account_id === undefined) return { accountId: null, mode: query.mode ?? null };
    return { accountId: query.account_id, mode: query.mode ?? 'live' };
  }
  if ((query.account_id !== undefined && query.account_id !== actor.accountId) || (query.mode !== undefined && query.mode !== actor.mode)) {
    throw operatorOnly(actor);
  }
  return { accountId: actor.accountId, mode: actor.mode };
}
