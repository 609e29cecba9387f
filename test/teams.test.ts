import { expect } from 'chai';
import { simpleParser } from 'mailparser';
import { call, startTestService, TestClock, type CallResult, type TestService } from './helpers/service.js';
import { createAccount, createKey, writePlansFile } from './helpers/accounts.js';
import { REFUSED_RECIPIENT, startSmtpServer, type LocalSmtp } from './helpers/smtp-server.js';
import { ARTICLE, html, startPageServer, type PageServer } from './helpers/page-server.js';

/** The session cookie a response set, as a Cookie header value, and its attributes. */
function sessionCookie(response: CallResult): { cookie: string; attributes: string } {
  const line = response.headers.getSetCookie().find((c) => c.startsWith('sev_session='));
  expect(line, 'a sev_session cookie').to.be.a('string');
  const [pair, ...attributes] = line!.split(';').map((part) => part.trim());
  return { cookie: pair!, attributes: attributes.join('; ') };
}

describe('teams, roles and invitations', function () {
  this.timeout(60_000);
  let smtp: LocalSmtp;
  let pages: PageServer;
  let service: TestService;
  const clock = new TestClock();
  let base: string;
  let accountId: string;
  let accountAdmin: string;

  before(async () => {
    smtp = await startSmtpServer();
    pages = await startPageServer({ '/article': html(ARTICLE) });
    service = await startTestService({ ...smtp.env, PLANS_FILE: writePlansFile(), INVITATION_TTL_HOURS: '2', SESSION_TTL_MINUTES: '60' }, 'all', clock);
    base = service.url;
    accountId = await createAccount(base, 'enterprise');
    accountAdmin = (await createKey(base, { account_id: accountId, name: 'account admin', permissions: ['admin'] })).key;
  });
  after(async () => {
    await service?.close();
    await pages?.close();
    await smtp?.close();
  });

  /** A team of the account, made by its admin key. */
  async function team(body: Record<string, unknown> = {}): Promise<any> {
    const made = await call(base, '/v1/teams', { key: accountAdmin, body: { name: 'research', ...body } });
    expect(made.status, JSON.stringify(made.json)).to.equal(200);
    return made.json.data;
  }

  /** A member added directly, and a standard key of its own made by the account's admin. */
  async function member(teamId: string, role: string, email = `${role}-${Math.random().toString(36).slice(2)}@example.test`): Promise<{ id: string; key: string; keyId: string }> {
    const added = await call(base, `/v1/teams/${teamId}/members`, { key: accountAdmin, body: { email, role } });
    expect(added.status, JSON.stringify(added.json)).to.equal(200);
    // admin stands for key management, which only the admin and developer roles have.
    const key = await createKey(base, { name: `${role} key`, member_id: added.json.data.id, ...(role === 'researcher' ? {} : { permissions: ['admin'] }) }, accountAdmin);
    expect(key.member_id).to.equal(added.json.data.id);
    return { id: added.json.data.id, key: key.key, keyId: key.id };
  }

  function expectRefused(response: CallResult, permission: string): void {
    expect(response.status, JSON.stringify(response.json)).to.equal(403);
    expect(response.json.error.code).to.equal('INSUFFICIENT_PERMISSIONS');
    expect(response.json.error.details.required_permission).to.equal(permission);
  }

  describe('teams', () => {
    it('creates, lists, reads, updates and deletes a team of the account', async () => {
      const made = await team({ name: 'platform', permissions: ['search', 'monitor'] });
      expect(made).to.include({ account_id: accountId, name: 'platform', member_count: 0 });
      expect(made.permissions).to.deep.equal(['search', 'monitor']);
      expect(made.id).to.match(/^team_/);

      const listed = await call(base, '/v1/teams?limit=100', { key: accountAdmin });
      expect(listed.status).to.equal(200);
      expect(listed.json.data.items.map((t: any) => t.id)).to.include(made.id);
      expect(listed.json.data.total).to.be.at.least(1);

      const updated = await call(base, `/v1/teams/${made.id}`, { key: accountAdmin, method: 'PATCH', body: { name: 'platform team', permissions: ['search'] } });
      expect(updated.status).to.equal(200);
      expect(updated.json.data).to.include({ name: 'platform team' });
      expect(updated.json.data.permissions).to.deep.equal(['search']);
      expect((await call(base, `/v1/teams/${made.id}`, { key: accountAdmin })).json.data.name).to.equal('platform team');

      const removed = await call(base, `/v1/teams/${made.id}`, { key: accountAdmin, method: 'DELETE' });
      expect(removed.json.data).to.deep.equal({ team_id: made.id, deleted: true, members_removed: 0, keys_revoked: 0 });
      const gone = await call(base, `/v1/teams/${made.id}`, { key: accountAdmin });
      expect(gone.status).to.equal(404);
      expect(gone.json.error.details).to.include({ resource: 'team', id: made.id });
    });

    it("refuses an unknown scope in a team's permissions", async () => {
      const response = await call(base, '/v1/teams', { key: accountAdmin, body: { name: 'x', permissions: ['search', 'admin'] } });
      expect(response.status).to.equal(400);
      expect(response.json.error.details.parameter).to.equal('permissions[1]');
    });

    it("hides another account's teams, and lets only the master key name an account", async () => {
      const mine = await team();
      const other = await createAccount(base, 'pro');
      const otherAdmin = (await createKey(base, { account_id: other, permissions: ['admin'] })).key;
      expect((await call(base, `/v1/teams/${mine.id}`, { key: otherAdmin })).status).to.equal(404);
      expect((await call(base, '/v1/teams', { key: otherAdmin })).json.data.items).to.deep.equal([]);
      expectRefused(await call(base, `/v1/teams?account_id=${accountId}`, { key: otherAdmin }), 'operator:accounts');
      // The master key reaches every account.
      const master = await call(base, `/v1/teams?account_id=${accountId}`);
      expect(master.json.data.items.map((t: any) => t.id)).to.include(mine.id);
    });

    it('refuses keys without the admin permission, and sandbox keys changing teams', async () => {
      const plain = (await createKey(base, { account_id: accountId })).key;
      expectRefused(await call(base, '/v1/teams', { key: plain }), 'admin:teams');
      expectRefused(await call(base, '/v1/teams', { key: plain, body: { name: 'x' } }), 'admin:teams');
      const sandboxAdmin = (await createKey(base, { account_id: accountId, permissions: ['admin'], mode: 'test' })).key;
      expect((await call(base, '/v1/teams', { key: sandboxAdmin })).status).to.equal(200);
      expectRefused(await call(base, '/v1/teams', { key: sandboxAdmin, body: { name: 'x' } }), 'admin:live');
    });
  });

  describe('members and roles', () => {
    it('adds members by e-mail with a role, one membership per address in the account', async () => {
      const t = await team();
      const added = await call(base, `/v1/teams/${t.id}/members`, { key: accountAdmin, body: { email: 'Ada@Example.TEST', role: 'developer' } });
      expect(added.status).to.equal(200);
      expect(added.json.data).to.include({ team_id: t.id, account_id: accountId, email: 'ada@example.test', role: 'developer' });
      const again = await call(base, `/v1/teams/${(await team()).id}/members`, { key: accountAdmin, body: { email: 'ada@example.test', role: 'admin' } });
      expect(again.status).to.equal(400);
      expect(again.json.error.code).to.equal('INVALID_PARAMETER');
      expect(again.json.error.details.parameter).to.equal('email');
      const bad = await call(base, `/v1/teams/${t.id}/members`, { key: accountAdmin, body: { email: 'not an address', role: 'developer' } });
      expect(bad.status).to.equal(400);
      const role = await call(base, `/v1/teams/${t.id}/members`, { key: accountAdmin, body: { email: 'b@example.test', role: 'owner' } });
      expect(role.status).to.equal(400);

      const listed = await call(base, `/v1/teams/${t.id}/members`, { key: accountAdmin });
      expect(listed.json.data.items.map((m: any) => m.email)).to.deep.equal(['ada@example.test']);
      expect((await call(base, `/v1/teams/${t.id}`, { key: accountAdmin })).json.data.member_count).to.equal(1);
      // The master key makes a member's key in the member's account without naming it.
      const key = await createKey(base, { name: 'for ada', member_id: added.json.data.id });
      expect(key).to.include({ account_id: accountId, member_id: added.json.data.id });
      const other = await createAccount(base, 'pro');
      const otherAdmin = (await createKey(base, { account_id: other, permissions: ['admin'] })).key;
      const foreign = await call(base, '/v1/auth/keys', { key: otherAdmin, body: { name: 'x', member_id: added.json.data.id } });
      expect(foreign.status).to.equal(404);
      expect(foreign.json.error.details).to.include({ resource: 'member' });
    });

    it('a researcher runs the core operations and reads monitoring, and is refused everything else', async function () {
      this.timeout(60_000);
      const t = await team();
      const researcher = await member(t.id, 'researcher');
      const who = await call(base, '/v1/auth/whoami', { key: researcher.key });
      expect(who.json.data.member).to.include({ id: researcher.id, role: 'researcher' });
      expect(who.json.data.permissions).to.have.members(['search', 'extract', 'summarize', 'validate', 'monitor']);

      const extracted = await call(base, '/v1/extract', { key: researcher.key, body: { url: `${pages.url}/article` } });
      expect(extracted.status, JSON.stringify(extracted.json)).to.equal(200);
      expect((await call(base, '/v1/usage', { key: researcher.key })).status).to.equal(200);
      expect((await call(base, '/v1/alerts', { key: researcher.key })).status).to.equal(200);

      expectRefused(await call(base, '/v1/alerts', {
        key: researcher.key, body: { name: 'x', condition: 'error_rate > 0.5', duration: '5m', channels: ['webhook'], webhook: { url: 'https://example.test/h' } },
      }), 'monitor:write');
      expectRefused(await call(base, '/v1/cache/store', { key: researcher.key, body: { query: 'q', content: 'c' } }), 'cache:write');
      expectRefused(await call(base, '/v1/auth/keys', { key: researcher.key }), 'admin:keys');
      expectRefused(await call(base, '/v1/auth/keys', { key: researcher.key, body: { name: 'mine' } }), 'admin:keys');
      expectRefused(await call(base, '/v1/teams', { key: researcher.key }), 'admin:teams');
      expectRefused(await call(base, '/v1/sso', { key: researcher.key }), 'admin:sso');
      // Nobody can give a researcher's key more than the role allows.
      expectRefused(await call(base, '/v1/auth/keys', { key: accountAdmin, body: { name: 'x', member_id: researcher.id, permissions: ['admin'] } }), 'admin:grant');
      expectRefused(await call(base, '/v1/auth/keys', { key: accountAdmin, body: { name: 'x', member_id: researcher.id, type: 'scoped', permissions: ['cache'] } }), 'cache:grant');
    });

    it('a developer manages its own keys only, within its team\'s permissions', async () => {
      const t = await team({ permissions: ['search', 'extract', 'cache', 'monitor'] });
      const developer = await member(t.id, 'developer');
      const colleague = await member(t.id, 'developer');

      const own = await call(base, '/v1/auth/keys', { key: developer.key, body: { name: 'ci', type: 'scoped', permissions: ['search', 'cache'] } });
      expect(own.status, JSON.stringify(own.json)).to.equal(200);
      expect(own.json.data.member_id).to.equal(developer.id);
      expect((await call(base, '/v1/cache/store', { key: own.json.data.key, body: { query: 'dev question', content: 'answer' } })).status).to.equal(200);

      // Beyond the team's scopes, for another member, or with another member's key: refused or invisible.
      expectRefused(await call(base, '/v1/auth/keys', { key: developer.key, body: { name: 'x', type: 'scoped', permissions: ['index'] } }), 'index:grant');
      expectRefused(await call(base, '/v1/auth/keys', { key: developer.key, body: { name: 'x', member_id: colleague.id } }), 'admin:keys');
      const listed = await call(base, '/v1/auth/keys', { key: developer.key });
      expect(listed.json.data.items.map((k: any) => k.id)).to.have.members([developer.keyId, own.json.data.id]);
      expect((await call(base, `/v1/auth/keys/${colleague.keyId}`, { key: developer.key })).status).to.equal(404);
      expect((await call(base, `/v1/auth/keys/${colleague.keyId}/revoke`, { key: developer.key, body: {} })).status).to.equal(404);
      expect((await call(base, `/v1/auth/keys/${own.json.data.id}/rotate`, { key: developer.key, method: 'POST' })).status).to.equal(200);

      // The team's permissions bound a standard key: index is outside them.
      expectRefused(await call(base, '/v1/index/jobs/job_x', { key: developer.key }), 'index:read');
      expectRefused(await call(base, '/v1/teams', { key: developer.key, body: { name: 'x' } }), 'admin:teams');
      expectRefused(await call(base, '/v1/auth/service-accounts', { key: developer.key }), 'admin:service_accounts');
    });

    it("an admin member manages the account's keys and teams, others' keys included", async () => {
      const t = await team();
      const admin = await member(t.id, 'admin');
      const developer = await member(t.id, 'developer');
      expect((await call(base, `/v1/auth/keys/${developer.keyId}`, { key: admin.key })).status).to.equal(200);
      const made = await call(base, '/v1/teams', { key: admin.key, body: { name: 'made by a member' } });
      expect(made.status).to.equal(200);
      const revoked = await call(base, `/v1/auth/keys/${developer.keyId}/revoke`, { key: admin.key, body: {} });
      expect(revoked.json.data.status).to.equal('revoked');
      expect((await call(base, '/v1/auth/whoami', { key: developer.key })).status).to.equal(401);
    });

    it("applies a team's new permissions and a member's new role on the next request", async () => {
      const t = await team({ permissions: ['search', 'monitor'] });
      const developer = await member(t.id, 'developer');
      expectRefused(await call(base, '/v1/cache/store', { key: developer.key, body: { query: 'q1', content: 'c' } }), 'cache:write');
      await call(base, `/v1/teams/${t.id}`, { key: accountAdmin, method: 'PATCH', body: { permissions: ['search', 'monitor', 'cache'] } });
      expect((await call(base, '/v1/cache/store', { key: developer.key, body: { query: 'q1', content: 'c' } })).status).to.equal(200);

      const demoted = await call(base, `/v1/teams/${t.id}/members/${developer.id}`, { key: accountAdmin, method: 'PATCH', body: { role: 'researcher' } });
      expect(demoted.json.data.role).to.equal('researcher');
      expectRefused(await call(base, '/v1/cache/store', { key: developer.key, body: { query: 'q1', content: 'c' } }), 'cache:write');
      expectRefused(await call(base, '/v1/auth/keys', { key: developer.key }), 'admin:keys');
    });

    it('removing a member revokes its keys; deleting a team removes its members', async () => {
      const t = await team();
      const gone = await member(t.id, 'developer');
      const removed = await call(base, `/v1/teams/${t.id}/members/${gone.id}`, { key: accountAdmin, method: 'DELETE' });
      expect(removed.json.data).to.deep.equal({ member_id: gone.id, team_id: t.id, deleted: true, keys_revoked: 1 });
      const refused = await call(base, '/v1/auth/whoami', { key: gone.key });
      expect(refused.status).to.equal(401);
      expect(refused.json.error.details.reason).to.equal('api_key_revoked');

      const staying = await member(t.id, 'researcher');
      const deleted = await call(base, `/v1/teams/${t.id}`, { key: accountAdmin, method: 'DELETE' });
      expect(deleted.json.data).to.include({ members_removed: 1, keys_revoked: 1 });
      expect((await call(base, '/v1/auth/whoami', { key: staying.key })).status).to.equal(401);
    });

    it('keeps account keys working as before', async () => {
      const plain = (await createKey(base, { account_id: accountId })).key;
      const who = await call(base, '/v1/auth/whoami', { key: plain });
      expect(who.json.data.member).to.equal(null);
      expect((await call(base, '/v1/cache/store', { key: plain, body: { query: 'account', content: 'c' } })).status).to.equal(200);
      expect((await call(base, '/v1/auth/keys', { key: accountAdmin })).status).to.equal(200);
    });
  });

  describe('invitations', () => {
    /** The invitation mail to `email` the SMTP server received, and the token in its link. */
    async function mailTo(email: string): Promise<{ subject: string; text: string; html: string; token: string }> {
      const raw = smtp.mails.filter((m) => m.to.includes(email)).at(-1);
      expect(raw, `a mail to ${email}`).to.not.equal(undefined);
      const parsed = await simpleParser(raw!.raw);
      const token = /#token=([A-Za-z0-9_-]{43})/.exec(parsed.text ?? '')?.[1];
      expect(token, parsed.text).to.be.a('string');
      return { subject: parsed.subject ?? '', text: parsed.text ?? '', html: String(parsed.html), token: token! };
    }

    it('mails a single-use link; accepting it makes the member and starts its session', async () => {
      const t = await team({ name: 'Data <science>' });
      const sent = await call(base, `/v1/teams/${t.id}/invitations`, { key: accountAdmin, body: { email: 'Grace@Example.test', role: 'developer' } });
      expect(sent.status, JSON.stringify(sent.json)).to.equal(200);
      expect(sent.json.data).to.include({ team_id: t.id, email: 'grace@example.test', role: 'developer', status: 'pending', accepted_at: null });

      const mail = await mailTo('grace@example.test');
      expect(mail.subject).to.equal('You are invited to join the team Data <science>');
      expect(mail.text).to.include(`${base}/console/accept-invitation#token=${mail.token}`);
      expect(mail.html).to.include('Data &lt;science&gt;');
      // The token is in the mail only: neither the answer nor the list shows it.
      expect(JSON.stringify(sent.json)).not.to.include(mail.token);
      const listed = await call(base, `/v1/teams/${t.id}/invitations`, { key: accountAdmin });
      expect(JSON.stringify(listed.json)).not.to.include(mail.token);
      expect(listed.json.data.items[0]).to.include({ id: sent.json.data.id, status: 'pending' });

      const accepted = await call(base, '/v1/invitations/accept', { key: null, body: { token: mail.token } });
      expect(accepted.status, JSON.stringify(accepted.json)).to.equal(200);
      expect(accepted.json.data).to.include({ kind: 'member', via: 'invitation', account_id: accountId, key_id: null });
      expect(accepted.json.data.member).to.include({ email: 'grace@example.test', role: 'developer', team_id: t.id });
      const { cookie, attributes } = sessionCookie(accepted);
      expect(attributes).to.include('HttpOnly').and.include('SameSite=Strict').and.include('Path=/');
      expect(attributes).not.to.include('Secure');

      const members = await call(base, `/v1/teams/${t.id}/members`, { key: accountAdmin });
      expect(members.json.data.items.map((m: any) => m.email)).to.deep.equal(['grace@example.test']);
      expect((await call(base, `/v1/teams/${t.id}/invitations`, { key: accountAdmin })).json.data.items[0]).to.include({ status: 'accepted', member_id: accepted.json.data.member.id });

      // The session is the member: reads need the cookie only; changes need the CSRF token too.
      const session = await call(base, '/v1/session', { key: null, headers: { cookie } });
      expect(session.json.data.member.id).to.equal(accepted.json.data.member.id);
      expect(session.json.data.csrf_token).to.equal(accepted.json.data.csrf_token);
      const who = await call(base, '/v1/auth/whoami', { key: null, headers: { cookie } });
      expect(who.json.data).to.include({ type: 'member', key_id: accepted.json.data.member.id });
      const withoutCsrf = await call(base, '/v1/auth/keys', { key: null, headers: { cookie }, body: { name: 'from the console' } });
      expect(withoutCsrf.status).to.equal(403);
      expect(withoutCsrf.json.error.code).to.equal('CSRF_TOKEN_INVALID');
      const wrongCsrf = await call(base, '/v1/auth/keys', { key: null, headers: { cookie, 'x-csrf-token': 'x'.repeat(43) }, body: { name: 'from the console' } });
      expect(wrongCsrf.json.error.code).to.equal('CSRF_TOKEN_INVALID');
      const made = await call(base, '/v1/auth/keys', { key: null, headers: { cookie, 'x-csrf-token': session.json.data.csrf_token }, body: { name: 'from the console' } });
      expect(made.status, JSON.stringify(made.json)).to.equal(200);
      expect(made.json.data.member_id).to.equal(accepted.json.data.member.id);

      const again = await call(base, '/v1/invitations/accept', { key: null, body: { token: mail.token } });
      expect(again.status).to.equal(422);
      expect(again.json.error).to.deep.include({ code: 'INVITATION_INVALID' });
      expect(again.json.error.details.reason).to.equal('used');
    });

    it('refuses an expired link, an unknown one, and an address already a member', async () => {
      const t = await team();
      await call(base, `/v1/teams/${t.id}/invitations`, { key: accountAdmin, body: { email: 'late@example.test', role: 'researcher' } });
      const { token } = await mailTo('late@example.test');
      clock.advance(2 * 3_600_000 + 1000);
      try {
        const expired = await call(base, '/v1/invitations/accept', { key: null, body: { token } });
        expect(expired.status).to.equal(422);
        expect(expired.json.error.details.reason).to.equal('expired');
        expect((await call(base, `/v1/teams/${t.id}/invitations`, { key: accountAdmin })).json.data.items[0].status).to.equal('expired');
      } finally {
        clock.advance(-(2 * 3_600_000 + 1000));
      }
      const unknown = await call(base, '/v1/invitations/accept', { key: null, body: { token: 'A'.repeat(43) } });
      expect(unknown.json.error.details.reason).to.equal('not_found');

      await call(base, `/v1/teams/${t.id}/members`, { key: accountAdmin, body: { email: 'here@example.test', role: 'developer' } });
      const member = await call(base, `/v1/teams/${t.id}/invitations`, { key: accountAdmin, body: { email: 'here@example.test', role: 'admin' } });
      expect(member.status).to.equal(400);
      expect(member.json.error.details.parameter).to.equal('email');
    });

    it('voids an invitation the SMTP server refuses, and one withdrawn', async () => {
      const t = await team();
      const refused = await call(base, `/v1/teams/${t.id}/invitations`, { key: accountAdmin, body: { email: REFUSED_RECIPIENT, role: 'developer' } });
      expect(refused.status).to.equal(502);
      expect(refused.json.error.code).to.equal('UPSTREAM_ERROR');
      expect((await call(base, `/v1/teams/${t.id}/invitations`, { key: accountAdmin })).json.data.items).to.deep.equal([]);

      const sent = await call(base, `/v1/teams/${t.id}/invitations`, { key: accountAdmin, body: { email: 'withdrawn@example.test', role: 'developer' } });
      const { token } = await mailTo('withdrawn@example.test');
      const withdrawn = await call(base, `/v1/teams/${t.id}/invitations/${sent.json.data.id}`, { key: accountAdmin, method: 'DELETE' });
      expect(withdrawn.json.data).to.deep.equal({ invitation_id: sent.json.data.id, deleted: true });
      expect((await call(base, '/v1/invitations/accept', { key: null, body: { token } })).json.error.details.reason).to.equal('not_found');
    });

    it('lets only admins invite', async () => {
      const t = await team();
      const developer = await member(t.id, 'developer');
      expectRefused(await call(base, `/v1/teams/${t.id}/invitations`, { key: developer.key, body: { email: 'x@example.test', role: 'admin' } }), 'admin:teams');
    });
  });

  describe('console sessions', () => {
    it('signs in with a key: the session is the key, judged again on every request', async () => {
      const key = await createKey(base, { account_id: accountId, name: 'console' });
      const signedIn = await call(base, '/v1/session', { key: key.key, method: 'POST' });
      expect(signedIn.status, JSON.stringify(signedIn.json)).to.equal(200);
      expect(signedIn.json.data).to.include({ kind: 'key', via: 'api_key', key_id: key.id, member: null });
      const { cookie } = sessionCookie(signedIn);
      expect((await call(base, '/v1/usage', { key: null, headers: { cookie } })).status).to.equal(200);
      // A session does not start another.
      const nested = await call(base, '/v1/session', { key: null, method: 'POST', headers: { cookie, 'x-csrf-token': signedIn.json.data.csrf_token } });
      expect(nested.status).to.equal(400);
      // With a key, there is no session to read.
      expect((await call(base, '/v1/session', { key: key.key })).status).to.equal(404);

      await call(base, `/v1/auth/keys/${key.id}/revoke`, { body: {} });
      const afterRevoke = await call(base, '/v1/usage', { key: null, headers: { cookie } });
      expect(afterRevoke.status).to.equal(401);
      expect(afterRevoke.json.error.details.reason).to.equal('api_key_revoked');
    });

    it('ends at sign-out and at its expiry', async () => {
      const signedIn = await call(base, '/v1/session', { key: accountAdmin, method: 'POST' });
      const { cookie } = sessionCookie(signedIn);
      const csrf = signedIn.json.data.csrf_token as string;
      const out = await call(base, '/v1/session', { key: null, method: 'DELETE', headers: { cookie, 'x-csrf-token': csrf } });
      expect(out.json.data).to.deep.equal({ signed_out: true });
      expect(sessionCookie(out).attributes).to.include('Max-Age=0');
      const after = await call(base, '/v1/session', { key: null, headers: { cookie } });
      expect(after.status).to.equal(401);
      expect(after.json.error).to.deep.include({ code: 'INVALID_SESSION' });

      const second = sessionCookie(await call(base, '/v1/session', { key: accountAdmin, method: 'POST' })).cookie;
      expect((await call(base, '/v1/session', { key: null, headers: { cookie: second } })).status).to.equal(200);
      clock.advance(60 * 60_000);
      try {
        expect((await call(base, '/v1/session', { key: null, headers: { cookie: second } })).status).to.equal(401);
      } finally {
        clock.advance(-60 * 60_000);
      }
    });

    it("ends a member's session when the member is removed", async () => {
      const t = await team();
      await call(base, `/v1/teams/${t.id}/invitations`, { key: accountAdmin, body: { email: 'leaving@example.test', role: 'admin' } });
      const raw = smtp.mails.filter((m) => m.to.includes('leaving@example.test')).at(-1)!;
      const token = /#token=([A-Za-z0-9_-]{43})/.exec((await simpleParser(raw.raw)).text ?? '')![1]!;
      const accepted = await call(base, '/v1/invitations/accept', { key: null, body: { token } });
      const { cookie } = sessionCookie(accepted);
      // An admin member's session manages teams.
      expect((await call(base, '/v1/teams', { key: null, headers: { cookie } })).status).to.equal(200);
      await call(base, `/v1/teams/${t.id}/members/${accepted.json.data.member.id}`, { key: accountAdmin, method: 'DELETE' });
      const after = await call(base, '/v1/teams', { key: null, headers: { cookie } });
      expect(after.status).to.equal(401);
      expect(after.json.error.details.reason).to.equal('member_removed');
    });
  });
});
