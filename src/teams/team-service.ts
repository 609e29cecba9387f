/**
 * Teams, their members and invitations (docs/teams-and-sso.md). An account's admins manage them:
 * the master key (any account, naming it with account_id), the account's keys with the admin
 * permission, and members in the admin role. Teams of other accounts answer 404, as if absent.
 * Every change that alters what a member's keys may do (a role, a team's permissions, a member
 * removed) is published to every API process's key cache, so it holds from the next request.
 */
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Redis } from 'ioredis';
import type { Clock } from '../clock.js';
import type { Database } from '../storage/schema.js';
import { ApiError } from '../errors/catalogue.js';
import { randomId } from '../auth/key-format.js';
import { hashKey } from '../auth/key-hash.js';
import { publishInvalidation } from '../auth/key-cache.js';
import { DEFAULT_ACCOUNT_ID } from '../auth/key-service.js';
import { operatorOnly, SCOPES, type Principal } from '../auth/principal.js';
import type { MemberGrant, Role } from '../auth/member.js';
import type { EmailContent } from '../notify/email-sender.js';
import type { AttemptResult } from '../notify/http-post.js';
import { invitationMessage } from './invitation-email.js';
import {
  acceptInvitation, deleteInvitation, deleteMember, deleteTeam, findInvitation, findInvitationByToken, findMember, findMemberByEmail, findTeam,
  insertInvitation, insertMember, insertTeam, listInvitations, listMembers, listTeams, memberCounts, updateMemberRole, updateTeam,
  type Invitation, type Member, type Team,
} from './teams.repository.js';

/** Sends one e-mail; never throws (EmailSender). */
export interface Mailer {
  send(mail: EmailContent): Promise<AttemptResult>;
}

export interface TeamServiceDeps {
  db: Kysely<Database>;
  redis: Redis;
  prefix: string;
  clock: Clock;
  /** Undefined without SMTP_HOST: invitations are refused, members are added directly. */
  mailer: Mailer | undefined;
  invitationTtlMs: number;
  /** Throws NOT_FOUND for an account that does not exist. */
  getAccount(id: string): Promise<unknown>;
}

export interface Page {
  limit: number;
  offset: number;
}

export interface TeamInput {
  name: string;
  permissions?: string[];
  account_id?: string;
}

export interface MemberInput {
  email: string;
  role: Role;
}

/** Where the invitation link points: the console's page that accepts it. */
export const ACCEPT_PATH = '/console/accept-invitation';

/** Identifiers are printable ASCII, as their columns are; anything else names nothing (and MySQL refuses to compare it). */
const ID = /^[!-~]{1,40}$/;

export class TeamService {
  constructor(private readonly deps: TeamServiceDeps) {}

  async create(actor: Principal, input: TeamInput): Promise<Record<string, unknown>> {
    assertLive(actor);
    const accountId = input.account_id ?? actor.accountId ?? DEFAULT_ACCOUNT_ID;
    if (!actor.permissions.has('operator') && accountId !== actor.accountId) throw operatorOnly(actor);
    await this.deps.getAccount(accountId);
    const now = this.deps.clock.now();
    const team: Team = { id: randomId('team'), accountId, name: input.name, permissions: [...new Set(input.permissions ?? SCOPES)], createdAt: now, updatedAt: now };
    await insertTeam(this.deps.db, team);
    return teamView(team, 0);
  }

  async list(actor: Principal, query: Page & { account_id?: string }): Promise<Record<string, unknown>> {
    const operator = actor.permissions.has('operator');
    if (!operator && query.account_id !== undefined && query.account_id !== actor.accountId) throw operatorOnly(actor);
    const { total, rows } = await listTeams(this.deps.db, operator ? query.account_id ?? null : actor.accountId!, query.limit, query.offset);
    const counts = await memberCounts(this.deps.db, rows.map((team) => team.id));
    return { items: rows.map((team) => teamView(team, counts.get(team.id) ?? 0)), total, limit: query.limit, offset: query.offset };
  }

  async get(actor: Principal, id: string): Promise<Record<string, unknown>> {
    const team = await this.visible(actor, id);
    return teamView(team, (await memberCounts(this.deps.db, [team.id])).get(team.id) ?? 0);
  }

  async update(actor: Principal, id: string, changes: { name?: string; permissions?: string[] }): Promise<Record<string, unknown>> {
    assertLive(actor);
    const team = await this.visible(actor, id);
    await updateTeam(this.deps.db, team.id, { ...changes, ...(changes.permissions ? { permissions: [...new Set(changes.permissions)] } : {}) }, this.deps.clock.now());
    if (changes.permissions !== undefined) await this.invalidate(team.accountId);
    return this.get(actor, id);
  }

  /** Deletes the team, its members (revoking their keys) and its invitations. */
  async remove(actor: Principal, id: string): Promise<Record<string, unknown>> {
    assertLive(actor);
    const team = await this.visible(actor, id);
    const { members, keysRevoked } = await deleteTeam(this.deps.db, team.id, this.deps.clock.now());
    await this.invalidate(team.accountId);
    return { team_id: team.id, deleted: true, members_removed: members, keys_revoked: keysRevoked };
  }

  async listMembers(actor: Principal, teamId: string, page: Page): Promise<Record<string, unknown>> {
    const team = await this.visible(actor, teamId);
    const { total, rows } = await listMembers(this.deps.db, team.id, page.limit, page.offset);
    return { team_id: team.id, items: rows.map(memberView), total, limit: page.limit, offset: page.offset };
  }

  /** Adds a member directly, without an invitation (for an account whose people sign in through SSO). */
  async addMember(actor: Principal, teamId: string, input: MemberInput): Promise<Record<string, unknown>> {
    assertLive(actor);
    const team = await this.visible(actor, teamId);
    const email = normalEmail(input.email);
    const now = this.deps.clock.now();
    const member: Member = { id: randomId('mem'), teamId: team.id, accountId: team.accountId, email, role: input.role, createdAt: now, updatedAt: now };
    if (!(await insertMember(this.deps.db, member))) throw await this.alreadyMember(team.accountId, email);
    return memberView(member);
  }

  async getMember(actor: Principal, teamId: string, memberId: string): Promise<Record<string, unknown>> {
    return memberView(await this.visibleMember(actor, teamId, memberId));
  }

  async updateMember(actor: Principal, teamId: string, memberId: string, changes: { role: Role }): Promise<Record<string, unknown>> {
    assertLive(actor);
    const member = await this.visibleMember(actor, teamId, memberId);
    await updateMemberRole(this.deps.db, member.id, changes.role, this.deps.clock.now());
    await this.invalidate(member.accountId);
    return memberView((await findMember(this.deps.db, member.id))!);
  }

  /** Removes a member and revokes its keys; its console sessions end with it. */
  async removeMember(actor: Principal, teamId: string, memberId: string): Promise<Record<string, unknown>> {
    assertLive(actor);
    const member = await this.visibleMember(actor, teamId, memberId);
    const keysRevoked = await deleteMember(this.deps.db, member.id, this.deps.clock.now());
    await this.invalidate(member.accountId);
    return { member_id: member.id, team_id: member.teamId, deleted: true, keys_revoked: keysRevoked };
  }

  /**
   * Invites an address: stores the invitation with the SHA-256 of a random token and mails the
   * link holding the token, which is in no response and nowhere else. A mail the SMTP server does
   * not take voids the invitation (UPSTREAM_ERROR): an invitation nobody received is no use.
   */
  async invite(actor: Principal, teamId: string, input: MemberInput, baseUrl: string): Promise<Record<string, unknown>> {
    assertLive(actor);
    const team = await this.visible(actor, teamId);
    if (!this.deps.mailer) {
      throw new ApiError('INVALID_PARAMETER', { parameter: 'email', reason: 'cannot be invited: this deployment sends no e-mail (SMTP_HOST is not configured); add the member with POST /v1/teams/{id}/members', provided: input.email });
    }
    const email = normalEmail(input.email);
    if (await findMemberByEmail(this.deps.db, team.accountId, email)) throw await this.alreadyMember(team.accountId, email);
    const now = this.deps.clock.now();
    const token = randomBytes(32).toString('base64url');
    const invitation: Invitation = {
      id: randomId('inv'), teamId: team.id, accountId: team.accountId, email, role: input.role, invitedBy: actor.id,
      createdAt: now, expiresAt: new Date(now.getTime() + this.deps.invitationTtlMs), acceptedAt: null, memberId: null,
    };
    await insertInvitation(this.deps.db, invitation, hashKey(token));
    // In the fragment, the token reaches the console's page but no server's log or Referer header.
    const link = `${baseUrl}${ACCEPT_PATH}#token=${token}`;
    const sent = await this.deps.mailer.send({
      to: [email], ...invitationMessage({ teamName: team.name, role: input.role, link, expiresAt: invitation.expiresAt }),
      deliveryId: invitation.id, event: 'team.invitation',
    });
    if (!sent.ok) {
      await deleteInvitation(this.deps.db, invitation.id);
      throw new ApiError('UPSTREAM_ERROR', undefined, `The invitation e-mail could not be sent (${sent.error}); the invitation was not kept.`);
    }
    return invitationView(invitation, now);
  }

  async listInvitations(actor: Principal, teamId: string, page: Page): Promise<Record<string, unknown>> {
    const team = await this.visible(actor, teamId);
    const { total, rows } = await listInvitations(this.deps.db, team.id, page.limit, page.offset);
    const now = this.deps.clock.now();
    return { team_id: team.id, items: rows.map((row) => invitationView(row, now)), total, limit: page.limit, offset: page.offset };
  }

  async cancelInvitation(actor: Principal, teamId: string, invitationId: string): Promise<Record<string, unknown>> {
    assertLive(actor);
    const team = await this.visible(actor, teamId);
    const invitation = ID.test(invitationId) ? await findInvitation(this.deps.db, invitationId) : undefined;
    if (!invitation || invitation.teamId !== team.id) throw notFound('invitation', invitationId);
    await deleteInvitation(this.deps.db, invitation.id);
    return { invitation_id: invitation.id, deleted: true };
  }

  /** Uses an invitation's token once: the member it makes, with its team's scopes (to start its session). */
  async accept(token: string): Promise<{ member: MemberGrant; view: Record<string, unknown> }> {
    const invitation = /^[A-Za-z0-9_-]{43}$/.test(token) ? await findInvitationByToken(this.deps.db, hashKey(token)) : undefined;
    if (!invitation) throw invalidInvitation('not_found', 'No invitation has this token.');
    if (invitation.acceptedAt !== null) throw invalidInvitation('used', 'This invitation has been used already.');
    const now = this.deps.clock.now();
    if (invitation.expiresAt <= now) throw invalidInvitation('expired', `This invitation expired at ${invitation.expiresAt.toISOString()}.`);
    const team = await findTeam(this.deps.db, invitation.teamId);
    if (!team) throw invalidInvitation('not_found', 'The team of this invitation no longer exists.');
    const member: Member = {
      id: randomId('mem'), teamId: team.id, accountId: team.accountId, email: invitation.email, role: invitation.role, createdAt: now, updatedAt: now,
    };
    const outcome = await acceptInvitation(this.deps.db, invitation, member);
    if (outcome === 'used') throw invalidInvitation('used', 'This invitation has been used already.');
    if (outcome === 'member_exists') throw invalidInvitation('already_member', `${invitation.email} is a member of this account already.`);
    return {
      member: { id: member.id, teamId: team.id, accountId: team.accountId, email: member.email, role: member.role, teamPermissions: team.permissions },
      view: memberView(member),
    };
  }

  /** The member an SSO sign-in names: the account's member with this address, with its team's scopes. */
  async memberForSignIn(accountId: string, email: string): Promise<MemberGrant | undefined> {
    const member = await findMemberByEmail(this.deps.db, accountId, normalEmail(email));
    const team = member && (await findTeam(this.deps.db, member.teamId));
    if (!member || !team) return undefined;
    return { id: member.id, teamId: team.id, accountId, email: member.email, role: member.role, teamPermissions: team.permissions };
  }

  /** The team, if `actor` may see it: its own account's, or any for the master key. Others are 404, as if absent. */
  private async visible(actor: Principal, id: string): Promise<Team> {
    const team = ID.test(id) ? await findTeam(this.deps.db, id) : undefined;
    if (!team || (!actor.permissions.has('operator') && team.accountId !== actor.accountId)) throw notFound('team', id);
    return team;
  }

  private async visibleMember(actor: Principal, teamId: string, memberId: string): Promise<Member> {
    const team = await this.visible(actor, teamId);
    const member = ID.test(memberId) ? await findMember(this.deps.db, memberId) : undefined;
    if (!member || member.teamId !== team.id) throw notFound('member', memberId);
    return member;
  }

  private async alreadyMember(accountId: string, email: string): Promise<ApiError> {
    const existing = await findMemberByEmail(this.deps.db, accountId, email);
    return new ApiError('INVALID_PARAMETER', {
      parameter: 'email', reason: `is a member of this account already${existing ? ` (${existing.id}, team ${existing.teamId})` : ''}: one membership per address`, provided: email,
    });
  }

  /** Drops every cached key lookup of the account in every API process: its members' permissions changed. */
  private async invalidate(accountId: string): Promise<void> {
    await publishInvalidation(this.deps.redis, this.deps.prefix, { account_id: accountId });
  }
}

/** Teams belong to accounts, not to modes: a sandbox key (a playground) does not change them. */
function assertLive(actor: Principal): void {
  if (actor.mode === 'test') {
    throw new ApiError('INSUFFICIENT_PERMISSIONS', { required_permission: 'admin:live', current_plan: actor.plan }, 'Teams are managed with live keys; a sandbox key only reads them.');
  }
}

function normalEmail(email: string): string {
  return email.trim().toLowerCase();
}

function notFound(kind: string, id: string): ApiError {
  return new ApiError('NOT_FOUND', { resource: kind, id }, `No ${kind} with id ${id}.`);
}

function invalidInvitation(reason: string, message: string): ApiError {
  return new ApiError('INVITATION_INVALID', { reason }, message);
}

export function teamView(team: Team, memberCount: number): Record<string, unknown> {
  return {
    id: team.id, account_id: team.accountId, name: team.name, permissions: team.permissions, member_count: memberCount,
    created_at: team.createdAt.toISOString(), updated_at: team.updatedAt.toISOString(),
  };
}

export function memberView(member: Member): Record<string, unknown> {
  return {
    id: member.id, team_id: member.teamId, account_id: member.accountId, email: member.email, role: member.role,
    created_at: member.createdAt.toISOString(), updated_at: member.updatedAt.toISOString(),
  };
}

function invitationView(invitation: Invitation, now: Date): Record<string, unknown> {
  const status = invitation.acceptedAt !== null ? 'accepted' : invitation.expiresAt <= now ? 'expired' : 'pending';
  return {
    id: invitation.id, team_id: invitation.teamId, account_id: invitation.accountId, email: invitation.email, role: invitation.role, status,
    invited_by: invitation.invitedBy, created_at: invitation.createdAt.toISOString(), expires_at: invitation.expiresAt.toISOString(),
    accepted_at: invitation.acceptedAt?.toISOString() ?? null, member_id: invitation.memberId,
  };
}
