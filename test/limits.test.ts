import { expect } from 'chai';
import { Redis } from 'ioredis';
import { sql } from 'kysely';
import { openStorage, type Storage } from '../src/storage/connection.js';
import { call, startTestService, TestClock, type TestService } from './helpers/service.js';
import { createAccount, createKey, writePlansFile } from './helpers/accounts.js';
import { runPrefix } from './helpers/run-scope.js';
import { until } from './helpers/wait.js';

const DAY = 86_400_000;

/** A metered request: extract with an empty body is admitted and counted, then refused (422 URL_INVALID). */
const metered = (base: string, key: string) => call(base, '/v1/extract', { key, body: {} });

describe('rate limits and quotas', () => {
  const clock = new TestClock();
  const plansFile = writePlansFile();
  let service: TestService;
  let storage: Storage;
  let redis: Redis;

  before(async () => {
    service = await startTestService({ PLANS_FILE: plansFile, AUTH_FAILURES_PER_MINUTE: '3' }, 'api', clock);
    storage = openStorage(service.config.databaseUrl, 2);
    redis = new Redis(service.config.redisUrl);
  });
  after(async () => {
    await service.close();
    await storage.close();
    redis.disconnect();
  });

  describe('per-minute rate limit', () => {
    it('admits exactly the limit from a burst of 200 parallel requests', async () => {
      const { key } = await createKey(service.url, { account_id: await createAccount(service.url, 'enterprise'), rate_limit: 50 });
      const responses = await Promise.all(Array.from({ length: 200 }, () => call(service.url, '/v1/health', { key })));
      const statuses = responses.map((r) => r.status);
      expect(statuses.filter((s) => s === 200)).to.have.length(50);
      expect(statuses.filter((s) => s === 429)).to.have.length(150);
      const remaining = responses.filter((r) => r.status === 200).map((r) => Number(r.headers.get('x-ratelimit-remaining'))).sort((a, b) => a - b);
      expect(remaining).to.deep.equal(Array.from({ length: 50 }, (_, i) => i));
    });

    it('sends the X-RateLimit headers on success and on errors, and Retry-After on 429', async () => {
      const { key } = await createKey(service.url, { account_id: await createAccount(service.url, 'enterprise'), rate_limit: 2 });
      const ok = await call(service.url, '/v1/health', { key });
      const failed = await metered(service.url, key); // 422 from validation, after the limit was counted
      const limited = await call(service.url, '/v1/health', { key });
      expect(ok.status).to.equal(200);
      expect(failed.status).to.equal(422);
      for (const [response, remaining] of [[ok, '1'], [failed, '0'], [limited, '0']] as const) {
        expect(response.headers.get('x-ratelimit-limit')).to.equal('2');
        expect(response.headers.get('x-ratelimit-remaining')).to.equal(remaining);
        expect(response.headers.get('x-ratelimit-window')).to.equal('60');
        const reset = Number(response.headers.get('x-ratelimit-reset'));
        expect(reset * 1000).to.be.within(Date.now(), Date.now() + 61_000);
      }
      expect(limited.status).to.equal(429);
      expect(limited.json.error.code).to.equal('RATE_LIMITED');
      const details = limited.json.error.details;
      expect(details).to.include({ limit: 2, period: '60s' });
      expect(Number(limited.headers.get('retry-after'))).to.equal(details.retry_after).and.be.within(1, 60);
      expect(Date.parse(details.reset_time)).to.equal(Number(limited.headers.get('x-ratelimit-reset')) * 1000);
    });

    it('answers 429 instead of 401 to an address that keeps failing, while good keys still work', async () => {
      const { key } = await createKey(service.url, { account_id: await createAccount(service.url, 'enterprise') });
      const prefix = `${service.config.queuePrefix}:authfail`;
      await redis.del(...(await redis.keys(`${prefix}*`)), `${prefix}:none`);
      const bad = [];
      for (let i = 0; i < 4; i++) bad.push(await call(service.url, '/v1/health', { key: 'sev_live_wrong' }));
      expect(bad.map((r) => r.status)).to.deep.equal([401, 401, 401, 429]);
      // A refused key shows the address' failure budget in the rate-limit headers.
      expect(bad.map((r) => r.headers.get('x-ratelimit-remaining'))).to.deep.equal(['2', '1', '0', '0']);
      expect(bad[0]!.headers.get('x-ratelimit-limit')).to.equal('3');
      expect(bad[3]!.json.error.details).to.include({ limit: 3, period: '60s' });
      expect(bad[3]!.headers.get('retry-after')).to.match(/^\d+$/);
      expect((await call(service.url, '/v1/health', { key })).status).to.equal(200);
      await redis.del(...(await redis.keys(`${prefix}*`)));
    });

    it('holds guessed invitation tokens to the same failure budget as guessed keys', async () => {
      const prefix = `${service.config.queuePrefix}:authfail`;
      const stale = await redis.keys(`${prefix}*`);
      if (stale.length > 0) await redis.del(...stale);
      const guesses = [];
      for (let i = 0; i < 4; i++) guesses.push(await call(service.url, '/v1/invitations/accept', { body: { token: `guess-${i}` } }));
      expect(guesses.map((r) => [r.status, r.json.error.code])).to.deep.equal([
        [422, 'INVITATION_INVALID'], [422, 'INVITATION_INVALID'], [422, 'INVITATION_INVALID'], [429, 'RATE_LIMITED'],
      ]);
      expect(guesses.map((r) => r.headers.get('x-ratelimit-remaining'))).to.deep.equal(['2', '1', '0', '0']);
      // A body the schema refuses is no guess: it is not counted.
      expect((await call(service.url, '/v1/invitations/accept', { body: {} })).status).to.equal(400);
      await redis.del(...(await redis.keys(`${prefix}*`)));
    });

    it("sends the caller's address budget on every response no key's window describes", async () => {
      const prefix = `${service.config.queuePrefix}:authfail`;
      const stale = await redis.keys(`${prefix}*`);
      if (stale.length > 0) await redis.del(...stale);
      const account = await createAccount(service.url, 'enterprise');
      const outside = await call(service.url, '/v1/auth/service-accounts', {
        body: { name: 'elsewhere', environment: 'production', ip_allowlist: ['10.0.0.0/8'], account_id: account },
      });
      const raw = (init: RequestInit, path = '/v1/extract') => fetch(`${service.url}${path}`, init)
        .then(async (r) => ({ status: r.status, headers: r.headers, code: ((await r.json()) as any).error?.code as string | undefined }));
      const bearer = { authorization: 'Bearer sev_live_whatever' };
      const responses = [
        await raw({ method: 'POST', headers: { ...bearer, 'content-type': 'application/json' }, body: '{"url": ' }),
        await raw({ method: 'POST', headers: { ...bearer, 'content-type': 'application/json' }, body: 'x'.repeat(11 * 2 ** 20) }),
        await raw({ method: 'POST', headers: { ...bearer, 'content-type': 'text/plain' }, body: 'hello' }),
        await raw({ headers: bearer }, '/v1/no-such-path'),
        await raw({ method: 'PUT', headers: bearer }),
        await raw({ headers: { authorization: `Bearer ${outside.json.data.key}` } }, '/v1/health'),
        await raw({}, '/v1/plans'),
      ];
      expect(responses.map((r) => [r.status, r.code])).to.deep.equal([
        [400, 'INVALID_JSON'], [400, 'CONTENT_TOO_LARGE'], [415, 'UNSUPPORTED_MEDIA_TYPE'], [404, 'NOT_FOUND'], [405, 'METHOD_NOT_ALLOWED'],
        [403, 'IP_NOT_ALLOWED'], [200, undefined],
      ]);
      for (const response of responses) {
        expect(response.headers.get('x-ratelimit-limit')).to.equal('3');
        expect(response.headers.get('x-ratelimit-remaining')).to.equal('3');
        expect(response.headers.get('x-ratelimit-window')).to.equal('60');
        expect(Number(response.headers.get('x-ratelimit-reset')) * 1000).to.be.within(Date.now(), Date.now() + 61_000);
      }
      // After a failed authentication, the budget they show is what is left of it.
      expect((await call(service.url, '/v1/health', { key: 'sev_live_wrong' })).status).to.equal(401);
      expect((await raw({}, '/v1/plans')).headers.get('x-ratelimit-remaining')).to.equal('2');
      await redis.del(...(await redis.keys(`${prefix}*`)));
    });
  });

  describe('monthly quota', () => {
    it('refuses past the plan quota with MONTHLY_LIMIT_EXCEEDED, on metered endpoints only', async () => {
      const account = await createAccount(service.url, 'free');
      const { key } = await createKey(service.url, { account_id: account });
      for (let i = 0; i < 5; i++) expect((await metered(service.url, key)).status).to.equal(422);
      const refused = await metered(service.url, key);
      expect(refused.status).to.equal(429);
      expect(refused.json.error.code).to.equal('MONTHLY_LIMIT_EXCEEDED');
      const now = clock.now();
      const reset = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString();
      expect(refused.json.error.details).to.deep.equal({ monthly_limit: 5, requests_used: 5, reset_date: reset, upgrade_url: `${service.url}/v1/plans` });
      expect(Number(refused.headers.get('retry-after'))).to.be.closeTo((Date.parse(reset) - now.getTime()) / 1000, 5);
      expect(refused.headers.get('x-ratelimit-limit')).to.equal('1000');
      // Monitoring is not metered, and the quota is the account's: a second key shares it.
      expect((await call(service.url, '/v1/health', { key })).status).to.equal(200);
      const second = await createKey(service.url, { account_id: account });
      expect((await metered(service.url, second.key)).json.error.code).to.equal('MONTHLY_LIMIT_EXCEEDED');
      // A plan change reaches the cached keys at once.
      await call(service.url, `/v1/accounts/${account}`, { method: 'PATCH', body: { plan: 'pro' } });
      expect((await metered(service.url, key)).status).to.equal(422);
    });

    it('starts again in the next calendar month', async () => {
      const clockOf = new TestClock();
      const other = await startTestService({ PLANS_FILE: plansFile, QUEUE_PREFIX: service.config.queuePrefix }, 'api', clockOf);
      try {
        const { key } = await createKey(other.url, { account_id: await createAccount(other.url, 'free') });
        for (let i = 0; i < 5; i++) await metered(other.url, key);
        expect((await metered(other.url, key)).status).to.equal(429);
        const now = clockOf.now();
        clockOf.advance(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1) - now.getTime() + 1000);
        expect((await metered(other.url, key)).status).to.equal(422);
      } finally {
        await other.close();
      }
    });

    it('survives a restart of the API and the loss of every Redis counter', async () => {
      const prefix = runPrefix();
      const first = await startTestService({ PLANS_FILE: plansFile, QUEUE_PREFIX: prefix }, 'api', clock);
      const account = await createAccount(first.url, 'free');
      const { key } = await createKey(first.url, { account_id: account });
      for (let i = 0; i < 3; i++) await metered(first.url, key);
      await first.close();
      // What a Redis restart without persistence does to our counters.
      const counters = await redis.keys(`${prefix}:usage:*`);
      expect(counters).to.have.length(2);
      await redis.del(...counters);

      const second = await startTestService({ PLANS_FILE: plansFile, QUEUE_PREFIX: prefix }, 'api', clock);
      try {
        expect((await metered(second.url, key)).status).to.equal(422);
        expect((await metered(second.url, key)).status).to.equal(422);
        const refused = await metered(second.url, key);
        expect(refused.json.error.code).to.equal('MONTHLY_LIMIT_EXCEEDED');
        expect(refused.json.error.details.requests_used).to.equal(5);
      } finally {
        await second.close();
      }
      const period = clock.now().toISOString().slice(0, 7);
      const durable = await sql<{ requests: number }>`SELECT requests FROM usage_monthly WHERE account_id = ${account} AND mode = 'live' AND period = ${period}`.execute(storage.db);
      expect(Number(durable.rows[0]?.requests)).to.equal(5);
    });
  });

  describe('daily limit', () => {
    it('refuses past the key daily limit with RATE_LIMITED for the day, and resets at midnight UTC', async () => {
      const { key, id } = await createKey(service.url, { account_id: await createAccount(service.url, 'pro'), daily_limit: 2 });
      await metered(service.url, key);
      await metered(service.url, key);
      const refused = await metered(service.url, key);
      expect(refused.status).to.equal(429);
      expect(refused.json.error.code).to.equal('RATE_LIMITED');
      expect(refused.json.error.details).to.include({ limit: 2, period: '86400s' });
      const usage = (await call(service.url, `/v1/auth/keys/${id}/usage`)).json.data;
      expect(usage).to.include({ requests_today: 2, daily_limit: 2 });
      clock.advance(DAY);
      expect((await metered(service.url, key)).status).to.equal(422);
    });
  });

  describe('key usage', () => {
    it("counts a key's own requests this month, over several days, beside its account's", async () => {
      const clockOf = new TestClock();
      const other = await startTestService({ PLANS_FILE: plansFile, QUEUE_PREFIX: service.config.queuePrefix }, 'api', clockOf);
      try {
        const account = await createAccount(other.url, 'pro');
        const [a, b] = [await createKey(other.url, { account_id: account }), await createKey(other.url, { account_id: account })];
        const usage = async (id: string) => (await call(other.url, `/v1/auth/keys/${id}/usage`)).json.data;
        // Two days of one month: the first hour of the first day of next month, then the next day.
        const now = clockOf.now();
        clockOf.advance(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1, 1) - now.getTime());
        for (let i = 0; i < 2; i++) await metered(other.url, a.key);
        await metered(other.url, b.key);
        clockOf.advance(DAY);
        await metered(other.url, a.key);
        for (let i = 0; i < 3; i++) await metered(other.url, b.key);
        // Earlier days are read from MySQL, where the counts arrive within a second (daily and monthly together).
        const period = clockOf.now().toISOString().slice(0, 7);
        await until(async () => {
          const durable = await sql<{ requests: number }>`SELECT requests FROM usage_monthly WHERE account_id = ${account} AND mode = 'live' AND period = ${period}`.execute(storage.db);
          return Number(durable.rows[0]?.requests) === 7;
        }, 5000);
        expect(await usage(a.id)).to.include({ requests_today: 1, requests_this_month: 3, account_requests_this_month: 7 });
        expect(await usage(b.id)).to.include({ requests_today: 3, requests_this_month: 4, account_requests_this_month: 7 });
      } finally {
        await other.close();
      }
    });
  });

  describe('sandbox', () => {
    it('gives test keys their own quota, usage and audit, apart from live ones', async () => {
      const account = await createAccount(service.url, 'free');
      const live = await createKey(service.url, { account_id: account });
      const test = await createKey(service.url, { account_id: account, mode: 'test' });
      expect(test.key).to.match(/^sev_test_/);
      for (let i = 0; i < 5; i++) await metered(service.url, live.key);
      expect((await metered(service.url, live.key)).status).to.equal(429);

      // The live quota is used up; the sandbox has its own 3 requests.
      for (let i = 0; i < 3; i++) expect((await metered(service.url, test.key)).status).to.equal(422);
      const refused = await metered(service.url, test.key);
      expect(refused.json.error.details).to.include({ monthly_limit: 3, requests_used: 3 });

      const liveUsage = (await call(service.url, `/v1/auth/keys/${live.id}/usage`)).json.data;
      const testUsage = (await call(service.url, `/v1/auth/keys/${test.id}/usage`)).json.data;
      expect(liveUsage).to.include({ mode: 'live', requests_this_month: 5, monthly_limit: 5 });
      expect(testUsage).to.include({ mode: 'test', requests_this_month: 3, monthly_limit: 3 });

      // A sandbox admin key sees and makes sandbox keys only.
      const admin = await createKey(service.url, { account_id: account, mode: 'test', permissions: ['admin'] });
      const listed = (await call(service.url, '/v1/auth/keys', { key: admin.key })).json.data.items;
      expect(listed.map((k: any) => k.mode)).to.satisfy((modes: string[]) => modes.length > 0 && modes.every((m) => m === 'test'));
      expect((await call(service.url, `/v1/auth/keys/${live.id}`, { key: admin.key })).status).to.equal(404);
      const liveFromSandbox = await call(service.url, '/v1/auth/keys', { key: admin.key, body: { name: 'x', mode: 'live' } });
      expect(liveFromSandbox.status).to.equal(403);

      // API processes only hand audit entries off: a worker of the deployment writes them.
      const writer = await startTestService({ PLANS_FILE: plansFile, QUEUE_PREFIX: service.config.queuePrefix }, 'worker', clock);
      let byKey: Record<string, [string, number]> = {};
      try {
        await until(async () => {
          const rows = await sql<{ principal_id: string; mode: string; n: number }>`
            SELECT principal_id, mode, COUNT(*) AS n FROM request_log WHERE account_id = ${account} GROUP BY principal_id, mode`.execute(storage.db);
          byKey = Object.fromEntries(rows.rows.map((r) => [r.principal_id, [r.mode, Number(r.n)]]));
          return byKey[live.id]?.[1] === 6 && byKey[test.id]?.[1] === 4;
        }, 15_000).catch(() => undefined);
      } finally {
        await writer.close();
      }
      expect(byKey[live.id]).to.deep.equal(['live', 6]);
      expect(byKey[test.id]).to.deep.equal(['test', 4]);
    });
  });
});
