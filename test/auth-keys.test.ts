import { expect } from 'chai';
import { sql } from 'kysely';
import { openStorage, type Storage } from '../src/storage/connection.js';
import { call, startTestService, TestClock, TEST_KEY, type TestService } from './helpers/service.js';
import { createAccount, createKey, writePlansFile } from './helpers/accounts.js';
import { until } from './helpers/wait.js';

const HOUR = 3_600_000;

describe('API keys', () => {
  let service: TestService;
  let storage: Storage;
  const clock = new TestClock();
  let pro: string;
  let free: string;

  before(async () => {
    service = await startTestService({ PLANS_FILE: writePlansFile(), AUTH_FAILURES_PER_MINUTE: '1000' }, 'api', clock);
    storage = openStorage(service.config.databaseUrl, 2);
    pro = await createAccount(service.url, 'pro');
    free = await createAccount(service.url, 'free');
  });
  after(async () => {
    await service.close();
    await storage.close();
  });

  const health = (key: string | null, headers: Record<string, string> = {}) => call(service.url, '/v1/health', { key, headers });

  describe('presenting a key', () => {
    it('refuses a request without a key with MISSING_API_KEY', async () => {
      const response = await health(null);
      expect(response.status).to.equal(401);
      expect(response.json.error.code).to.equal('MISSING_API_KEY');
    });

    it('tells a malformed key from an unknown one, both INVALID_API_KEY', async () => {
      const malformed = await health('sev_live_not-a-key');
      expect(malformed.status).to.equal(401);
      expect(malformed.json.error).to.include({ code: 'INVALID_API_KEY' });
      expect(malformed.json.error.details.reason).to.equal('invalid_api_key');

      // A real key with one character changed fails its checksum before any lookup.
      const { key } = await createKey(service.url, { account_id: pro });
      const typo = `${key.slice(0, 20)}${key[20] === 'a' ? 'b' : 'a'}${key.slice(21)}`;
      expect((await health(typo)).json.error.details.reason).to.equal('invalid_api_key');

      // Well formed, valid checksum, but never issued.
      const { generateKey } = await import('../src/auth/key-format.js');
      const unknown = await health(generateKey('live'));
      expect(unknown.status).to.equal(401);
      expect(unknown.json.error.details.reason).to.equal('api_key_not_found');
    });

    it('accepts the key as a bearer token or as X-API-Key', async () => {
      const { key } = await createKey(service.url, { account_id: pro });
      expect((await health(key)).status).to.equal(200);
      expect((await health(null, { 'x-api-key': key })).status).to.equal(200);
    });
  });

  describe('creating keys', () => {
    it('returns the record of section 2.5 with a sev_live_ secret, and stores only its hash', async () => {
      const data = await createKey(service.url, { account_id: pro, name: 'ci', description: 'CI runs', rate_limit: 120 });
      expect(data.key).to.match(/^sev_live_[0-9A-Za-z]{49}$/);
      expect(data).to.include({ name: 'ci', type: 'standard', mode: 'live', account_id: pro, status: 'active', rate_limit: 120, description: 'CI runs', last_used_at: null });
      expect(data.id).to.match(/^key_/);
      expect(data.permissions).to.include.members(['search', 'extract', 'summarize', 'validate', 'cache', 'monitor']);
      expect(Date.parse(data.created_at)).to.be.closeTo(clock.now().getTime(), 10_000);
      expect(data.key_hint).to.equal(`sev_live_…${data.key.slice(-4)}`);

      const stored = await sql<Record<string, unknown>>`SELECT * FROM api_keys WHERE id = ${data.id}`.execute(storage.db);
      const secrets = await sql<Record<string, unknown>>`SELECT * FROM api_key_secrets WHERE key_id = ${data.id}`.execute(storage.db);
      expect(JSON.stringify([stored.rows, secrets.rows])).to.not.include(data.key.slice(9));
      expect(secrets.rows).to.have.length(1);

      const read = await call(service.url, `/v1/auth/keys/${data.id}`);
      expect(read.json.data).to.not.have.property('key');
      expect(read.json.data.id).to.equal(data.id);
    });

    it('needs the master key or the admin permission', async () => {
      const { key } = await createKey(service.url, { account_id: pro });
      const response = await call(service.url, '/v1/auth/keys', { key, body: { name: 'x' } });
      expect(response.status).to.equal(403);
      expect(response.json.error.code).to.equal('INSUFFICIENT_PERMISSIONS');
      expect(response.json.error.details).to.include({ required_permission: 'admin:keys', current_plan: 'pro' });
      expect(response.json.error.details.upgrade_url).to.equal(`${service.url}/v1/plans`);
    });

    it('lets an admin key manage its own account only', async () => {
      const admin = (await createKey(service.url, { account_id: pro, permissions: ['admin'] })).key;
      const own = await createKey(service.url, { name: 'made by admin' }, admin);
      expect(own.account_id).to.equal(pro);
      expect((await call(service.url, `/v1/auth/keys/${own.id}`, { key: admin })).status).to.equal(200);

      const elsewhere = await createKey(service.url, { account_id: free });
      const hidden = await call(service.url, `/v1/auth/keys/${elsewhere.id}`, { key: admin });
      expect(hidden.status).to.equal(404);
      const listed = await call(service.url, '/v1/auth/keys?limit=1000', { key: admin });
      expect(listed.json.data.items.map((k: any) => k.account_id)).to.satisfy((ids: string[]) => ids.every((id) => id === pro));
      const foreign = await call(service.url, '/v1/auth/keys', { key: admin, body: { name: 'x', account_id: free } });
      expect(foreign.status).to.equal(403);
      expect(foreign.json.error.details.required_permission).to.equal('operator:accounts');
      expect((await call(service.url, '/v1/accounts', { key: admin })).status).to.equal(403);
    });

    it('refuses scoped keys on a plan without them with FEATURE_NOT_AVAILABLE', async () => {
      const response = await call(service.url, '/v1/auth/keys', { body: { name: 'x', type: 'scoped', permissions: ['search'], account_id: free } });
      expect(response.status).to.equal(403);
      expect(response.json.error.code).to.equal('FEATURE_NOT_AVAILABLE');
      expect(response.json.error.details).to.deep.equal({ feature: 'scoped_keys', required_plan: 'pro', current_plan: 'free' });
    });

    it('limits a scoped key to its scopes, naming the missing one', async () => {
      const { key, permissions } = await createKey(service.url, { account_id: pro, type: 'scoped', permissions: ['extract'] });
      expect(permissions).to.deep.equal(['extract']);
      const response = await health(key);
      expect(response.status).to.equal(403);
      expect(response.json.error.code).to.equal('INSUFFICIENT_PERMISSIONS');
      expect(response.json.error.details).to.include({ required_permission: 'monitor:read', current_plan: 'pro' });
      // The request was refused after the rate limit, so it still shows where the key stands.
      expect(response.headers.get('x-ratelimit-limit')).to.equal('1000');
    });

    it('refuses limits above the plan, a past expiry, and permissions on a standard key', async () => {
      const over = await call(service.url, '/v1/auth/keys', { body: { name: 'x', account_id: pro, rate_limit: 1001 } });
      expect(over.status).to.equal(400);
      expect(over.json.error.details).to.include({ parameter: 'rate_limit', provided: 1001 });
      const past = await call(service.url, '/v1/auth/keys', { body: { name: 'x', account_id: pro, expires_at: new Date(clock.now().getTime() - 1000).toISOString() } });
      expect(past.json.error.details.parameter).to.equal('expires_at');
      const standard = await call(service.url, '/v1/auth/keys', { body: { name: 'x', account_id: pro, permissions: ['search'] } });
      expect(standard.json.error.details.parameter).to.equal('permissions');
      const nobody = await call(service.url, '/v1/auth/keys', { body: { name: 'x', account_id: 'acct_nobody' } });
      expect(nobody.status).to.equal(404);
    });

    it('refuses an expiry or a revocation time later than MySQL\'s DATETIME holds, naming the field', async () => {
      // Issue 20: a valid date-time whose offset carries it past 9999-12-31 in UTC reached MySQL and answered 500.
      const farthest = '9999-12-31T23:59:59-12:00';
      const expiry = await call(service.url, '/v1/auth/keys', { body: { name: 'x', account_id: pro, expires_at: farthest } });
      expect(expiry.status, JSON.stringify(expiry.json)).to.equal(400);
      expect(expiry.json.error.details).to.include({ parameter: 'expires_at', provided: farthest });
      const { id } = await createKey(service.url, { account_id: pro });
      const revocation = await call(service.url, `/v1/auth/keys/${id}/revoke`, { body: { revoke_at: farthest } });
      expect(revocation.status, JSON.stringify(revocation.json)).to.equal(400);
      expect(revocation.json.error.details).to.include({ parameter: 'revoke_at' });
      const latest = await call(service.url, `/v1/auth/keys/${id}/revoke`, { body: { revoke_at: '9999-12-31T23:59:59Z' } });
      expect(latest.json.data).to.include({ status: 'active', revoke_at: '9999-12-31T23:59:59.000Z' });
    });

    it('keeps last_used_at true', async () => {
      const { id, key } = await createKey(service.url, { account_id: pro });
      const before = clock.now().getTime();
      await health(key);
      // Written by a batched flush once a second, not on the request path.
      await until(async () => (await call(service.url, `/v1/auth/keys/${id}`)).json.data.last_used_at !== null, 3000);
      const record = (await call(service.url, `/v1/auth/keys/${id}`)).json.data;
      expect(Date.parse(record.last_used_at)).to.be.within(before - 5, clock.now().getTime());
    });
  });

  describe('lifecycle', () => {
    it('expires a key at expires_at with EXPIRED_API_KEY', async () => {
      const { id, key } = await createKey(service.url, { account_id: pro, expires_at: new Date(clock.now().getTime() + HOUR).toISOString() });
      expect((await health(key)).status).to.equal(200);
      clock.advance(HOUR + 1000);
      const response = await health(key);
      expect(response.status).to.equal(401);
      expect(response.json.error.code).to.equal('EXPIRED_API_KEY');
      expect((await call(service.url, `/v1/auth/keys/${id}`)).json.data.status).to.equal('expired');
    });

    it('rotates: new key at once, the old one for exactly 24 hours', async () => {
      const { id, key: old } = await createKey(service.url, { account_id: pro });
      const rotatedAt = clock.now().getTime();
      const rotation = await call(service.url, `/v1/auth/keys/${id}/rotate`, { method: 'POST' });
      expect(rotation.status).to.equal(200);
      const { new_key: fresh, old_key_expires_at: oldEnds } = rotation.json.data;
      expect(fresh).to.match(/^sev_live_/).and.not.equal(old);
      expect(rotation.json.data.key).to.equal(fresh);
      expect(rotation.json.data.id).to.equal(id);
      expect(rotation.json.data.key_hint).to.equal(`sev_live_…${fresh.slice(-4)}`);
      expect(Date.parse(oldEnds) - rotatedAt).to.be.closeTo(24 * HOUR, 5_000);

      expect((await health(old)).status).to.equal(200);
      expect((await health(fresh)).status).to.equal(200);
      expect((await call(service.url, `/v1/auth/keys/${id}`)).json.data.old_key_expires_at).to.equal(oldEnds);

      clock.advance(Date.parse(oldEnds) - clock.now().getTime() - 60_000); // a minute before the end
      expect((await health(old)).status).to.equal(200);
      clock.advance(61_000); // a second after it
      const expired = await health(old);
      expect(expired.status).to.equal(401);
      expect(expired.json.error.code).to.equal('EXPIRED_API_KEY');
      expect((await health(fresh)).status).to.equal(200);
      const record = (await call(service.url, `/v1/auth/keys/${id}`)).json.data;
      expect(record).to.include({ status: 'active', old_key_expires_at: null });
    });

    it('revokes at once, and refuses to rotate a revoked key', async () => {
      const { id, key } = await createKey(service.url, { account_id: pro });
      expect((await health(key)).status).to.equal(200);
      const revoked = await call(service.url, `/v1/auth/keys/${id}/revoke`, { method: 'POST' });
      expect(revoked.json.data.status).to.equal('revoked');
      const response = await health(key);
      expect(response.status).to.equal(401);
      expect(response.json.error.code).to.equal('INVALID_API_KEY');
      expect(response.json.error.details.reason).to.equal('api_key_revoked');

      const again = await call(service.url, `/v1/auth/keys/${id}/revoke`, { method: 'POST' });
      expect(again.json.data.revoked_at).to.equal(revoked.json.data.revoked_at);
      const rotate = await call(service.url, `/v1/auth/keys/${id}/rotate`, { method: 'POST' });
      expect(rotate.status).to.equal(422);
      expect(rotate.json.error).to.deep.include({ code: 'KEY_NOT_ACTIVE', details: { key_id: id, status: 'revoked' } });
    });

    it('revokes at a scheduled time', async () => {
      const { id, key } = await createKey(service.url, { account_id: pro });
      const at = new Date(clock.now().getTime() + 2 * HOUR).toISOString();
      const scheduled = await call(service.url, `/v1/auth/keys/${id}/revoke`, { body: { revoke_at: at } });
      expect(scheduled.json.data).to.include({ status: 'active', revoke_at: at });
      expect((await health(key)).status).to.equal(200);
      clock.advance(2 * HOUR + 1000);
      expect((await health(key)).json.error.details.reason).to.equal('api_key_revoked');
      expect((await call(service.url, `/v1/auth/keys/${id}`)).json.data).to.include({ status: 'revoked', revoked_at: at, revoke_at: null });

      const past = await call(service.url, `/v1/auth/keys/${id}/revoke`, { body: { revoke_at: new Date(clock.now().getTime() - 1000).toISOString() } });
      expect(past.status).to.equal(400);
      expect(past.json.error.details.parameter).to.equal('revoke_at');
    });

    it('is seen at once by another API process sharing Redis and MySQL', async () => {
      const other = await startTestService({ QUEUE_PREFIX: service.config.queuePrefix, PLANS_FILE: writePlansFile() }, 'api', clock);
      try {
        const { id, key } = await createKey(service.url, { account_id: pro });
        // Used once on the other process, so its key cache holds the lookup.
        expect((await call(other.url, '/v1/health', { key })).status).to.equal(200);
        expect((await call(service.url, `/v1/auth/keys/${id}/revoke`, { method: 'POST' })).status).to.equal(200);
        const response = await call(other.url, '/v1/health', { key });
        expect(response.status).to.equal(401);
        expect(response.json.error.details.reason).to.equal('api_key_revoked');
      } finally {
        await other.close();
      }
    });

    it("reads a key's usage: requests today against its daily limit", async () => {
      const { id, key } = await createKey(service.url, { account_id: pro, daily_limit: 40 });
      // Extract is metered; an invalid body is still an admitted request.
      for (let i = 0; i < 3; i++) await call(service.url, '/v1/extract', { key, body: {} });
      await health(key); // monitoring is not metered
      const usage = (await call(service.url, `/v1/auth/keys/${id}/usage`)).json.data;
      expect(usage).to.include({ key_id: id, mode: 'live', requests_today: 3, daily_limit: 40, requests_this_month: usage.requests_this_month, monthly_limit: null, rate_limit: 1000 });
      expect(usage.requests_this_month).to.be.at.least(3);
    });
  });

  describe('lists and plans', () => {
    it('lists keys with filters and paging, and never a secret', async () => {
      const account = await createAccount(service.url, 'pro');
      await createKey(service.url, { account_id: account, name: 'a' });
      await createKey(service.url, { account_id: account, name: 'b', mode: 'test' });
      const all = (await call(service.url, `/v1/auth/keys?account_id=${account}`)).json.data;
      expect(all.items.map((k: any) => k.name)).to.deep.equal(['a', 'b']);
      expect(JSON.stringify(all)).to.not.match(/sev_(live|test)_[0-9A-Za-z]{49}/);
      const sandbox = (await call(service.url, `/v1/auth/keys?account_id=${account}&mode=test`)).json.data;
      expect(sandbox.items.map((k: any) => k.name)).to.deep.equal(['b']);
      const page = (await call(service.url, `/v1/auth/keys?account_id=${account}&limit=1&offset=1`)).json.data;
      expect(page).to.include({ limit: 1, offset: 1 });
      expect(page.items.map((k: any) => k.name)).to.deep.equal(['b']);
      expect((await call(service.url, '/v1/auth/keys?limit=0')).json.error.code).to.equal('INVALID_PARAMETER');
    });

    it('publishes the plans without a key, and changes an account plan for its keys at once', async () => {
      const plans = await call(service.url, '/v1/plans', { key: null });
      expect(plans.json.data.plans.map((p: any) => p.name)).to.deep.equal(['free', 'pro', 'enterprise']);
      const account = await createAccount(service.url, 'free');
      const { key } = await createKey(service.url, { account_id: account });
      expect((await health(key)).headers.get('x-ratelimit-limit')).to.equal('1000');
      const change = await call(service.url, `/v1/accounts/${account}`, { method: 'PATCH', body: { plan: 'pro' } });
      expect(change.json.data.plan).to.equal('pro');
      expect((await health(key)).status).to.equal(200);
      const scoped = await call(service.url, '/v1/auth/keys', { body: { name: 'x', type: 'scoped', permissions: ['search'], account_id: account } });
      expect(scoped.status).to.equal(200);
      const unknown = await call(service.url, `/v1/accounts/${account}`, { method: 'PATCH', body: { plan: 'platinum' } });
      expect(unknown.status).to.equal(400);
    });
  });

  it('tells any valid key who it is, with the limits it works under', async () => {
    const { id, key } = await createKey(service.url, { account_id: pro, type: 'scoped', permissions: ['search'], mode: 'test' });
    const response = await call(service.url, '/v1/auth/whoami', { key });
    expect(response.status).to.equal(200);
    expect(response.json.data).to.deep.equal({
      key_id: id, type: 'scoped', mode: 'test', account_id: pro, plan: 'pro', permissions: ['search'],
      rate_limit: 1000, daily_limit: 100, monthly_limit: null, member: null,
    });
    expect((await call(service.url, '/v1/auth/whoami')).json.data).to.include({ key_id: 'master', type: 'master', plan: 'operator' });
    expect((await call(service.url, '/v1/auth/whoami', { key: null })).status).to.equal(401);
  });

  it('still accepts the master key everywhere', async () => {
    expect((await call(service.url, '/v1/health', { key: TEST_KEY })).status).to.equal(200);
  });
});
