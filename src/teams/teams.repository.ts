import type { Kysely, Selectable, Transaction } from 'kysely';
import type { Database, TeamInvitationsTable, TeamMembersTable, TeamsTable } from '../storage/schema.js';
import type { Role } from '../auth/member.js';

export interface Team {
  id: string;
  accountId: string;
  name: string;
  permissions: string[];
  createdAt: Date;
  updatedAt: Date;
}

export interface Member {
  id: string;
  teamId: string;
  accountId: string;
  email: string;
  role: Role;
  createdAt: Date;
  updatedAt: Date;
}

export interface Invitation {
  id: string;
  teamId: string;
  accountId: string;
  email: string;
  role: Role;
  invitedBy: string;
  createdAt: Date;
  expiresAt: Date;
  acceptedAt: Date | null;
  memberId: string | null;
}

export interface Listed<T> {
  total: number;
  rows: T[];
}

function toTeam(row: Selectable<TeamsTable>): Team {
  return {
    id: row.id, accountId: row.account_id, name: row.name, permissions: JSON.parse(row.permissions) as string[],
    createdAt: row.created_at, updatedAt: row.updated_at,
  };
}

function toMember(row: Selectable<TeamMembersTable>): Member {
  return {
    id: row.id, teamId: row.team_id, accountId: row.account_id, email: row.email, role: row.role as Role,
    createdAt: row.created_at, updatedAt: row.updated_at,
  };
}

function toInvitation(row: Selectable<TeamInvitationsTable>): Invitation {
  return {
    id: row.id, teamId: row.team_id, accountId: row.account_id, email: row.email, role: row.role as Role, invitedBy: row.invited_by,
    createdAt: row.created_at, expiresAt: row.expires_at, acceptedAt: row.accepted_at, memberId: row.member_id,
  };
}

export async function insertTeam(db: Kysely<Database>, team: Team): Promise<void> {
  await db.insertInto('teams').values({
    id: team.id, account_id: team.accountId, name: team.name, permissions: JSON.stringify(team.permissions),
    created_at: team.createdAt, updated_at: team.updatedAt,
  }).execute();
}

export async function findTeam(db: Kysely<Database>, id: string): Promise<Team | undefined> {
  const row = await db.selectFrom('teams').selectAll().where('id', '=', id).executeTakeFirst();
  return row && toTeam(row);
}

/** An account's teams (every team for null), oldest first. */
export async function listTeams(db: Kysely<Database>, accountId: string | null, limit: number, offset: number): Promise<Listed<Team>> {
  let rows = db.selectFrom('teams').selectAll();
  let count = db.selectFrom('teams').select((eb) => eb.fn.countAll<string>().as('n'));
  if (accountId !== null) {
    rows = rows.where('account_id', '=', accountId);
    count = count.where('account_id', '=', accountId);
  }
  const [found, total] = await Promise.all([
    rows.orderBy('created_at').orderBy('id').limit(limit).offset(offset).execute(),
    count.executeTakeFirstOrThrow(),
  ]);
  return { total: Number(total.n), rows: found.map(toTeam) };
}

export async function updateTeam(db: Kysely<Database>, id: string, changes: { name?: string; permissions?: string[] }, now: Date): Promise<void> {
  await db.updateTable('teams').set({
    ...(changes.name !== undefined ? { name: changes.name } : {}),
    ...(changes.permissions !== undefined ? { permissions: JSON.stringify(changes.permissions) } : {}),
    updated_at: now,
  }).where('id', '=', id).execute();
}

/** Members per team, for the teams listed. */
export async function memberCounts(db: Kysely<Database>, teamIds: readonly string[]): Promise<Map<string, number>> {
  if (teamIds.length === 0) return new Map();
  const rows = await db.selectFrom('team_members').select((eb) => ['team_id', eb.fn.countAll<string>().as('n')])
    .where('team_id', 'in', teamIds).groupBy('team_id').execute();
  return new Map(rows.map((row) => [row.team_id, Number(row.n)]));
}

/**
 * Revokes, as of `now`, every key of these members that is not revoked already (a key revoked
 * at a later time is revoked now instead). Returns how many were.
 */
async function revokeMemberKeys(trx: Transaction<Database>, memberIds: readonly string[], now: Date): Promise<number> {
  if (memberIds.length === 0) return 0;
  const result = await trx.updateTable('api_keys').set({ revoked_at: now })
    .where('member_id', 'in', memberIds)
    .where((eb) => eb.or([eb('revoked_at', 'is', null), eb('revoked_at', '>', now)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Deletes a team with its members (revoking their keys) and its invitations, in one transaction. */
export async function deleteTeam(db: Kysely<Database>, id: string, now: Date): Promise<{ members: number; keysRevoked: number }> {
  return db.transaction().execute(async (trx) => {
    const members = (await trx.selectFrom('team_members').select('id').where('team_id', '=', id).forUpdate().execute()).map((row) => row.id);
    const keysRevoked = await revokeMemberKeys(trx, members, now);
    await trx.deleteFrom('team_members').where('team_id', '=', id).execute();
    await trx.deleteFrom('team_invitations').where('team_id', '=', id).execute();
    await trx.deleteFrom('teams').where('id', '=', id).execute();
    return { members: members.length, keysRevoked };
  });
}

/** Adds a member; false when the address is a member in the account already (one membership per address). */
export async function insertMember(db: Kysely<Database> | Transaction<Database>, member: Member): Promise<boolean> {
  const result = await db.insertInto('team_members').values({
    id: member.id, team_id: member.teamId, account_id: member.accountId, email: member.email, role: member.role,
    created_at: member.createdAt, updated_at: member.updatedAt,
  }).ignore().executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

export async function findMember(db: Kysely<Database>, id: string): Promise<Member | undefined> {
  const row = await db.selectFrom('team_members').selectAll().where('id', '=', id).executeTakeFirst();
  return row && toMember(row);
}

export async function findMemberByEmail(db: Kysely<Database>, accountId: string, email: string): Promise<Member | undefined> {
  const row = await db.selectFrom('team_members').selectAll().where('account_id', '=', accountId).where('email', '=', email).executeTakeFirst();
  return row && toMember(row);
}

export async function listMembers(db: Kysely<Database>, teamId: string, limit: number, offset: number): Promise<Listed<Member>> {
  const [rows, total] = await Promise.all([
    db.selectFrom('team_members').selectAll().where('team_id', '=', teamId).orderBy('created_at').orderBy('id').limit(limit).offset(offset).execute(),
    db.selectFrom('team_members').select((eb) => eb.fn.countAll<string>().as('n')).where('team_id', '=', teamId).executeTakeFirstOrThrow(),
  ]);
  return { total: Number(total.n), rows: rows.map(toMember) };
}

export async function updateMemberRole(db: Kysely<Database>, id: string, role: Role, now: Date): Promise<void> {
  await db.updateTable('team_members').set({ role, updated_at: now }).where('id', '=', id).execute();
}

/** Removes a member and revokes its keys, in one transaction; returns how many keys were revoked. */
export async function deleteMember(db: Kysely<Database>, id: string, now: Date): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const keysRevoked = await revokeMemberKeys(trx, [id], now);
    await trx.deleteFrom('team_members').where('id', '=', id).execute();
    return keysRevoked;
  });
}

/** Stores an invitation, replacing the open ones of the same address to the same team (a new link voids the old). */
export async function insertInvitation(db: Kysely<Database>, invitation: Invitation, tokenHash: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('team_invitations')
      .where('team_id', '=', invitation.teamId).where('email', '=', invitation.email).where('accepted_at', 'is', null)
      .execute();
    await trx.insertInto('team_invitations').values({
      id: invitation.id, team_id: invitation.teamId, account_id: invitation.accountId, email: invitation.email, role: invitation.role,
      token_hash: tokenHash, invited_by: invitation.invitedBy, created_at: invitation.createdAt, expires_at: invitation.expiresAt,
      accepted_at: null, member_id: null,
    }).execute();
  });
}

export async function findInvitation(db: Kysely<Database>, id: string): Promise<Invitation | undefined> {
  const row = await db.selectFrom('team_invitations').selectAll().where('id', '=', id).executeTakeFirst();
  return row && toInvitation(row);
}

export async function findInvitationByToken(db: Kysely<Database>, tokenHash: string): Promise<Invitation | undefined> {
  const row = await db.selectFrom('team_invitations').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
  return row && toInvitation(row);
}

export async function listInvitations(db: Kysely<Database>, teamId: string, limit: number, offset: number): Promise<Listed<Invitation>> {
  const [rows, total] = await Promise.all([
    db.selectFrom('team_invitations').selectAll().where('team_id', '=', teamId).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).offset(offset).execute(),
    db.selectFrom('team_invitations').select((eb) => eb.fn.countAll<string>().as('n')).where('team_id', '=', teamId).executeTakeFirstOrThrow(),
  ]);
  return { total: Number(total.n), rows: rows.map(toInvitation) };
}

export async function deleteInvitation(db: Kysely<Database>, id: string): Promise<void> {
  await db.deleteFrom('team_invitations').where('id', '=', id).execute();
}

export type AcceptOutcome = 'accepted' | 'used' | 'member_exists';

/**
 * Uses an invitation once: marks it accepted (only if nobody did first: the update is the lock)
 * and adds the member, in one transaction, so two clicks on one link make one member.
 */
export async function acceptInvitation(db: Kysely<Database>, invitation: Invitation, member: Member): Promise<AcceptOutcome> {
  return db.transaction().execute(async (trx) => {
    const marked = await trx.updateTable('team_invitations').set({ accepted_at: member.createdAt, member_id: member.id })
      .where('id', '=', invitation.id).where('accepted_at', 'is', null).executeTakeFirst();
    if (Number(marked.numUpdatedRows) === 0) return 'used';
    if (!(await insertMember(trx, member))) {
      // Rolled back, the invitation stays open: the address joined the account some other way meanwhile.
      throw new MemberExists();
    }
    return 'accepted';
  }).catch((error: unknown) => {
    if (error instanceof MemberExists) return 'member_exists';
    throw error;
  });
}

class MemberExists extends Error {}
