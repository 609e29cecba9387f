import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import type { Invitation, List, Member, Session, Team } from '../types.js';
import { ErrorNotice, Notice, PageTitle, Time } from '../ui.js';

const ROLES = ['admin', 'developer', 'researcher'] as const;

/** The account's teams, their members and invitations (docs/teams-and-sso.md). */
export function TeamPage(_props: { session: Session }) {
  const [teams, setTeams] = useState<Team[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [name, setName] = useState('');
  const load = () => api<List<Team>>('GET', '/v1/teams?limit=100').then((list) => setTeams(list.items), setError);
  useEffect(() => void load(), []);

  const create = async (event: Event) => {
    event.preventDefault();
    setError(null);
    try {
      await api('POST', '/v1/teams', { body: { name: name.trim() } });
      setName('');
      await load();
    } catch (failure) {
      setError(failure);
    }
  };

  return (
    <>
      <PageTitle>Team</PageTitle>
      <ErrorNotice error={error} />
      {teams === null ? <p role="status">Loading…</p> : teams.map((team) => <TeamSection key={team.id} team={team} />)}
      <section aria-labelledby="new-team">
        <h2 id="new-team">New team</h2>
        <form class="row" onSubmit={create}>
          <label for="team-name">Name</label>
          <input id="team-name" required value={name} onInput={(e) => setName(e.currentTarget.value)} />
          <button type="submit">Create the team</button>
        </form>
      </section>
    </>
  );
}

function TeamSection(props: { team: Team }) {
  const { team } = props;
  const base = `/v1/teams/${encodeURIComponent(team.id)}`;
  const [members, setMembers] = useState<Member[]>([]);
  const [invitations, setInvitations] = useState<Invitation[]>([]);
  const [error, setError] = useState<unknown>(null);
  const [message, setMessage] = useState('');
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<(typeof ROLES)[number]>('developer');

  const load = async () => {
    const [memberList, invitationList] = await Promise.all([
      api<List<Member>>('GET', `${base}/members?limit=100`),
      api<List<Invitation>>('GET', `${base}/invitations?limit=100`),
    ]);
    setMembers(memberList.items);
    setInvitations(invitationList.items.filter((invitation) => invitation.status === 'pending'));
  };
  useEffect(() => void load().catch(setError), []);

  const act = async (work: () => Promise<string>) => {
    setError(null);
    setMessage('');
    try {
      setMessage(await work());
      await load();
    } catch (failure) {
      setError(failure);
    }
  };
  const submit = (how: 'members' | 'invitations') => (event: Event) => {
    event.preventDefault();
    void act(async () => {
      await api('POST', `${base}/${how}`, { body: { email: email.trim(), role } });
      const done = how === 'members' ? `${email} is a ${role} of ${team.name}.` : `${email} is invited; the e-mail's link works once.`;
      setEmail('');
      return done;
    });
  };
  const headingId = `team-${team.id}`;

  return (
    <section aria-labelledby={headingId} class="team">
      <h2 id={headingId}>{team.name}</h2>
      <p class="hint">Keys of its members may hold: {team.permissions.join(', ')}.</p>
      <ErrorNotice error={error} />
      {message && <Notice>{message}</Notice>}
      <h3>Members</h3>
      {members.length === 0 ? <p>No members yet.</p> : (
        <table>
          <thead><tr><th scope="col">E-mail</th><th scope="col">Role</th><th scope="col">Since</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
          <tbody>
            {members.map((member) => (
              <tr key={member.id}>
                <th scope="row">{member.email}</th>
                <td>
                  <select aria-label={`Role of ${member.email}`} value={member.role} onChange={(e) => {
                    const next = e.currentTarget.value;
                    void act(async () => {
                      await api('PATCH', `${base}/members/${encodeURIComponent(member.id)}`, { body: { role: next } });
                      return `${member.email} is now a ${next}.`;
                    });
                  }}>
                    {ROLES.map((value) => <option key={value} value={value}>{value}</option>)}
                  </select>
                </td>
                <td><Time value={member.created_at} /></td>
                <td><button type="button" class="danger" aria-label={`Remove ${member.email}`} onClick={() => act(async () => {
                  await api('DELETE', `${base}/members/${encodeURIComponent(member.id)}`);
                  return `${member.email} is removed; their keys are revoked.`;
                })}>Remove</button></td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h3>Pending invitations</h3>
      {invitations.length === 0 ? <p>None.</p> : (
        <ul>
          {invitations.map((invitation) => (
            <li key={invitation.id}>
              {invitation.email} ({invitation.role}), until <Time value={invitation.expires_at} />{' '}
              <button type="button" class="secondary" aria-label={`Withdraw the invitation of ${invitation.email}`} onClick={() => act(async () => {
                await api('DELETE', `${base}/invitations/${encodeURIComponent(invitation.id)}`);
                return `The invitation of ${invitation.email} is withdrawn.`;
              })}>Withdraw</button>
            </li>
          ))}
        </ul>
      )}
      <h3>Add someone</h3>
      <form class="grid" onSubmit={submit('invitations')}>
        <div>
          <label for={`${headingId}-email`}>E-mail address</label>
          <input id={`${headingId}-email`} type="email" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        </div>
        <div>
          <label for={`${headingId}-role`}>Role</label>
          <select id={`${headingId}-role`} value={role} onChange={(e) => setRole(e.currentTarget.value as (typeof ROLES)[number])}>
            {ROLES.map((value) => <option key={value} value={value}>{value}</option>)}
          </select>
        </div>
        <div class="row">
          <button type="submit">Invite by e-mail</button>
          <button type="button" class="secondary" onClick={(e) => submit('members')(e)}>Add directly (SSO)</button>
        </div>
      </form>
    </section>
  );
}
