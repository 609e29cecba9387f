/**
 * Console sessions: a random token in an HttpOnly cookie, and in Redis (under the token's
 * SHA-256, so the store never holds a usable token) what it opens: a team member (signed in
 * through SSO or an accepted invitation), or an API key (signed in with it; only the key's hash
 * is kept and the key is judged again on every request, so revoking it ends the session). Each
 * session has a CSRF token that changes (every method but GET and HEAD) must echo in a header.
 * Sessions end at their expiry (the Redis key's TTL), at sign-out, or when their member or key
 * stops being valid.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Clock } from '../clock.js';
import { hashKey } from './key-hash.js';

/** The cookie that carries the session token. */
export const SESSION_COOKIE = 'sev_session';
/** The header a change made in a session must carry the session's CSRF token in. */
export const CSRF_HEADER = 'X-CSRF-Token';

export type Session = {
  accountId: string | null;
  csrfToken: string;
  createdAt: string;
  expiresAt: string;
  /** How it began: sso, invitation or api_key. */
  via: 'sso' | 'invitation' | 'api_key';
} & ({ kind: 'member'; memberId: string } | { kind: 'key'; keyHash: string });

/** What a new session opens, before it gets its CSRF token and times (each member of the union on its own). */
export type NewSession = Session extends infer S ? (S extends Session ? Omit<S, 'csrfToken' | 'createdAt' | 'expiresAt'> : never) : never;

export class SessionStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly ttlMs: number,
    private readonly clock: Clock,
  ) {}

  /** Starts a session; the token goes in the cookie and is never stored. */
  async create(what: NewSession): Promise<{ token: string; session: Session }> {
    const token = randomBytes(32).toString('base64url');
    const now = this.clock.now();
    const session = {
      ...what,
      csrfToken: randomBytes(32).toString('base64url'),
      createdAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + this.ttlMs).toISOString(),
    } as Session;
    await this.redis.set(this.key(token), JSON.stringify(session), 'PX', this.ttlMs);
    return { token, session };
  }

  /** The live session of a token, or undefined (unknown, signed out, or past its expiry). */
  async read(token: string): Promise<Session | undefined> {
    if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return undefined;
    const stored = await this.redis.get(this.key(token));
    if (stored === null) return undefined;
    const session = JSON.parse(stored) as Session;
    // The TTL ends it in Redis; the service clock decides too, so a test clock moved past it agrees.
    return Date.parse(session.expiresAt) > this.clock.now().getTime() ? session : undefined;
  }

  async remove(token: string): Promise<void> {
    await this.redis.del(this.key(token));
  }

  private key(token: string): string {
    return `${this.prefix}:session:${hashKey(token)}`;
  }
}

/** Whether a presented CSRF token is the session's, compared in constant time. */
export function csrfMatches(session: Session, presented: string): boolean {
  const expected = Buffer.from(session.csrfToken);
  const given = Buffer.from(presented);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
