/** A team member as authentication knows it (no imports: principals, roles and the keys' repository share it). */

export const ROLES = ['admin', 'developer', 'researcher'] as const;
export type Role = (typeof ROLES)[number];

/** The team member behind a principal: a member's key, or a console session of a member. */
export interface MemberIdentity {
  id: string;
  teamId: string;
  email: string;
  role: Role;
}

/** A member with what bounds it: its account and its team's scopes. */
export interface MemberGrant extends MemberIdentity {
  accountId: string;
  teamPermissions: readonly string[];
}
