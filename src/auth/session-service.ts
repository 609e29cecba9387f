import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import { ApiError } from '../errors/catalogue.js';
import { memberPrincipal, type Authenticator } from './authenticator.js';
import { findAccount, findMemberGrant } from './keys.repository.js';
import type { Plans } from './plans.js';
import type { Principal } from './principal.js';
import type { MemberGrant } from './member.js';
import type { NewSession, Session, SessionStore } from './sessions.js';

export interface SessionServiceDeps {
  db: Kysely<Database>;
  store: SessionStore;
  authenticator: Authenticator;
  plans: Plans;
}

/** A session as the client sees it: who it is, until when, and the CSRF token its changes carry. */
export interface SessionView {
  kind: Session['kind'];
  via: Session['via'];
  account_id: string | null;
  member: { id: string; team_id: string; email: string; role: string } | null;
  key_id: string | null;
  permissions: string[];
  csrf_token: string;
  created_at: string;
  expires_at: string;
}

/**
 * Starting, reading and ending console sessions, and the principal a session stands for:
 * a key's session is the key's principal, judged again on every request; a member's is built
 * from the member's current role and team (a member removed ends its sessions at once).
 */
export class SessionService {
  constructor(private readonly deps: SessionServiceDeps) {}

  start(what: NewSession): Promise<{ token: string; session: Session }> {
    return this.deps.store.create(what);
  }

  /** A member signed in through SSO or an accepted invitation: the session, its cookie's token, and its view. */
  async startForMember(member: MemberGrant, via: 'sso' | 'invitation'): Promise<{ token: string; session: Session; view: SessionView }> {
    const started = await this.start({ kind: 'member', memberId: member.id, accountId: member.accountId, via });
    const account = await findAccount(this.deps.db, member.accountId);
    return { ...started, view: this.view(started.session, memberPrincipal(member, this.deps.plans.get(account?.plan ?? ''))) };
  }

  /** The session of a cookie's token and who it stands for, or 401 INVALID_SESSION. */
  async authenticate(token: string, clientIp: string): Promise<{ session: Session; principal: Principal }> {
    const session = await this.deps.store.read(token);
    if (!session) throw new ApiError('INVALID_SESSION', { reason: 'session_not_found' }, 'The session is unknown, signed out or expired; sign in again.');
    if (session.kind === 'key') return { session, principal: await this.deps.authenticator.authenticateHash(session.keyHash, clientIp) };
    const member = await findMemberGrant(this.deps.db, session.memberId);
    const account = member && (await findAccount(this.deps.db, member.accountId));
    if (!member || !account) {
      await this.deps.store.remove(token);
      throw new ApiError('INVALID_SESSION', { reason: 'member_removed' }, 'The team member of this session was removed.');
    }
    return { session, principal: memberPrincipal(member, this.deps.plans.get(account.plan)) };
  }

  end(token: string): Promise<void> {
    return this.deps.store.remove(token);
  }

  view(session: Session, principal: Principal): SessionView {
    return {
      kind: session.kind,
      via: session.via,
      account_id: session.accountId,
      member: principal.member ? { id: principal.member.id, team_id: principal.member.teamId, email: principal.member.email, role: principal.member.role } : null,
      key_id: principal.kind === 'member' ? null : principal.id,
      permissions: [...principal.permissions],
      csrf_token: session.csrfToken,
      created_at: session.createdAt,
      expires_at: session.expiresAt,
    };
  }
}
