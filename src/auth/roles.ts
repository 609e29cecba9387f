/**
 * What a team member may do: its role's permissions, bounded by its team's scopes. The role
 * decides the reach in key management (admin: every key of the account; developer: its own;
 * researcher: none) and the scopes (a researcher: the core operations and monitoring, the
 * latter read-only); the team's `permissions` then bound the scopes of every member, admins
 * included. Checked on every request, so a role or team change applies at once.
 */
import type { MemberGrant, Role } from './member.js';
import { SCOPES, type Permission, type Scope } from './principal.js';

const ROLE_SCOPES: Readonly<Record<Role, readonly Scope[]>> = {
  admin: SCOPES,
  developer: SCOPES,
  researcher: ['search', 'extract', 'summarize', 'validate', 'monitor'],
};

/** Scopes a role holds for reading only. */
const READ_ONLY: Readonly<Record<Role, readonly Scope[]>> = {
  admin: [],
  developer: [],
  researcher: ['monitor'],
};

/** The scopes a member may use: its role's, within its team's. */
export function memberScopes(role: Role, teamPermissions: readonly string[]): Scope[] {
  const team = new Set(teamPermissions);
  return ROLE_SCOPES[role].filter((scope) => team.has(scope));
}

/** The key-management permission a role gives: admin (the account's keys), own_keys (its own), or none. */
function keyManagement(role: Role): Permission | undefined {
  if (role === 'admin') return 'admin';
  return role === 'developer' ? 'own_keys' : undefined;
}

/** A member's permissions when it acts without a key (a console session): everything its role and team allow. */
export function memberPermissions(member: Pick<MemberGrant, 'role' | 'teamPermissions'>): Set<Permission> {
  const management = keyManagement(member.role);
  return new Set<Permission>([...memberScopes(member.role, member.teamPermissions), ...(management ? [management] : [])]);
}

/**
 * The permissions of a member's key: what the key holds, within what the member may. A key's
 * `admin` stands for key management, which the role turns into its own reach (a developer's key
 * with `admin` manages the developer's keys).
 */
export function memberKeyPermissions(keyPermissions: readonly Permission[], member: Pick<MemberGrant, 'role' | 'teamPermissions'>): Permission[] {
  const allowed = new Set<string>(memberScopes(member.role, member.teamPermissions));
  const scopes = keyPermissions.filter((p) => allowed.has(p));
  const management = keyPermissions.includes('admin') ? keyManagement(member.role) : undefined;
  return management ? [...scopes, management] : scopes;
}

/** The permissions a key for this member may be granted (scopes, and admin where the role manages keys). */
export function grantableTo(member: Pick<MemberGrant, 'role' | 'teamPermissions'>): Set<string> {
  return new Set<string>([...memberScopes(member.role, member.teamPermissions), ...(keyManagement(member.role) ? ['admin'] : [])]);
}

export function readOnlyScopes(role: Role): ReadonlySet<Scope> | undefined {
  return READ_ONLY[role].length > 0 ? new Set(READ_ONLY[role]) : undefined;
}
