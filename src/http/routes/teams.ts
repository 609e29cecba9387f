import type { MemberInput, Page, TeamInput } from '../../teams/team-service.js';
import type { Role } from '../../auth/member.js';
import { respond } from '../context.js';
import { setSessionCookie } from '../session-cookie.js';
import type { Route } from './route.js';

/*
 * Teams (docs/teams-and-sso.md; the specification names teams, members by e-mail with a role,
 * and permissions as scopes, but no paths): /v1/teams with members and invitations below each
 * team, managed by the account's admins (scope admin: the master key for any account, the
 * account's admin keys, members in the admin role). Accepting an invitation needs no key: the
 * link's token is the credential, and it starts the new member's console session.
 */

const TEAM_ROUTE = { tag: 'Teams', scope: 'admin', permission: 'teams' } as const;

export const createTeam: Route<TeamInput> = {
  ...TEAM_ROUTE,
  operationId: 'createTeam',
  method: 'POST',
  path: '/v1/teams',
  summary: "Create a team; its permissions (scopes) bound what its members' keys may hold",
  body: 'team.request',
  response: 'team.response',
  async handler(ctx, { body }, services) {
    respond(ctx, await services.teams.create(ctx.state.principal!, body));
  },
};

export const listTeams: Route<unknown, Page & { account_id?: string }> = {
  ...TEAM_ROUTE,
  operationId: 'listTeams',
  method: 'GET',
  path: '/v1/teams',
  summary: "List the account's teams, oldest first, with their member counts",
  query: 'team-list.query',
  response: 'team-list.response',
  async handler(ctx, { query }, services) {
    respond(ctx, await services.teams.list(ctx.state.principal!, query));
  },
};

export const getTeam: Route = {
  ...TEAM_ROUTE,
  operationId: 'getTeam',
  method: 'GET',
  path: '/v1/teams/:id',
  summary: 'Read one team',
  response: 'team.response',
  async handler(ctx, _input, services) {
    respond(ctx, await services.teams.get(ctx.state.principal!, ctx.params.id!));
  },
};

export const updateTeam: Route<{ name?: string; permissions?: string[] }> = {
  ...TEAM_ROUTE,
  operationId: 'updateTeam',
  method: 'PATCH',
  path: '/v1/teams/:id',
  summary: "Rename a team or change its permissions (its members' keys follow on their next request)",
  body: 'team-update.request',
  response: 'team.response',
  async handler(ctx, { body }, services) {
    respond(ctx, await services.teams.update(ctx.state.principal!, ctx.params.id!, body));
  },
};

export const deleteTeam: Route = {
  ...TEAM_ROUTE,
  operationId: 'deleteTeam',
  method: 'DELETE',
  path: '/v1/teams/:id',
  summary: "Delete a team with its members (their keys revoked) and its invitations",
  response: 'team-delete.response',
  async handler(ctx, _input, services) {
    respond(ctx, await services.teams.remove(ctx.state.principal!, ctx.params.id!));
  },
};

export const listMembers: Route<unknown, Page> = {
  ...TEAM_ROUTE,
  operationId: 'listTeamMembers',
  method: 'GET',
  path: '/v1/teams/:id/members',
  summary: "A team's members, oldest first",
  query: 'team-page.query',
  response: 'member-list.response',
  async handler(ctx, { query }, services) {
    respond(ctx, await services.teams.listMembers(ctx.state.principal!, ctx.params.id!, query));
  },
};

export const addMember: Route<MemberInput> = {
  ...TEAM_ROUTE,
  operationId: 'addTeamMember',
  method: 'POST',
  path: '/v1/teams/:id/members',
  summary: 'Add a member by e-mail address with a role, without an invitation (people who sign in through SSO)',
  body: 'member.request',
  response: 'member.response',
  async handler(ctx, { body }, services) {
    respond(ctx, await services.teams.addMember(ctx.state.principal!, ctx.params.id!, body));
  },
};

export const getMember: Route = {
  ...TEAM_ROUTE,
  operationId: 'getTeamMember',
  method: 'GET',
  path: '/v1/teams/:id/members/:member_id',
  summary: 'Read one member',
  response: 'member.response',
  async handler(ctx, _input, services) {
    respond(ctx, await services.teams.getMember(ctx.state.principal!, ctx.params.id!, ctx.params.member_id!));
  },
};

export const updateMember: Route<{ role: Role }> = {
  ...TEAM_ROUTE,
  operationId: 'updateTeamMember',
  method: 'PATCH',
  path: '/v1/teams/:id/members/:member_id',
  summary: "Change a member's role (its keys and sessions follow on their next request)",
  body: 'member-update.request',
  response: 'member.response',
  async handler(ctx, { body }, services) {
    respond(ctx, await services.teams.updateMember(ctx.state.principal!, ctx.params.id!, ctx.params.member_id!, body));
  },
};

export const removeMember: Route = {
  ...TEAM_ROUTE,
  operationId: 'removeTeamMember',
  method: 'DELETE',
  path: '/v1/teams/:id/members/:member_id',
  summary: 'Remove a member: its keys are revoked and its console sessions end',
  response: 'member-delete.response',
  async handler(ctx, _input, services) {
    respond(ctx, await services.teams.removeMember(ctx.state.principal!, ctx.params.id!, ctx.params.member_id!));
  },
};

export const createInvitation: Route<MemberInput> = {
  ...TEAM_ROUTE,
  operationId: 'createTeamInvitation',
  method: 'POST',
  path: '/v1/teams/:id/invitations',
  summary: 'Invite an e-mail address into the team with a role: a single-use link that expires, sent over SMTP',
  body: 'member.request',
  response: 'invitation.response',
  failures: [502],
  async handler(ctx, { body }, services) {
    respond(ctx, await services.teams.invite(ctx.state.principal!, ctx.params.id!, body, services.publicUrl ?? ctx.state.origin));
  },
};

export const listInvitations: Route<unknown, Page> = {
  ...TEAM_ROUTE,
  operationId: 'listTeamInvitations',
  method: 'GET',
  path: '/v1/teams/:id/invitations',
  summary: "A team's invitations, newest first: pending, accepted or expired",
  query: 'team-page.query',
  response: 'invitation-list.response',
  async handler(ctx, { query }, services) {
    respond(ctx, await services.teams.listInvitations(ctx.state.principal!, ctx.params.id!, query));
  },
};

export const deleteInvitation: Route = {
  ...TEAM_ROUTE,
  operationId: 'deleteTeamInvitation',
  method: 'DELETE',
  path: '/v1/teams/:id/invitations/:invitation_id',
  summary: 'Withdraw an invitation: its link no longer works',
  response: 'invitation-delete.response',
  async handler(ctx, _input, services) {
    respond(ctx, await services.teams.cancelInvitation(ctx.state.principal!, ctx.params.id!, ctx.params.invitation_id!));
  },
};

export const acceptInvitation: Route<{ token: string }> = {
  operationId: 'acceptInvitation',
  method: 'POST',
  path: '/v1/invitations/accept',
  summary: "Accept an invitation with its link's token (no key): the member is created and its console session starts",
  tag: 'Teams',
  body: 'invitation-accept.request',
  response: 'session.response',
  credentialRefusal: 'INVITATION_INVALID',
  async handler(ctx, { body }, services) {
    const { member } = await services.teams.accept(body.token);
    const { token, session, view } = await services.sessions.startForMember(member, 'invitation');
    setSessionCookie(ctx, token, session);
    respond(ctx, view);
  },
};
