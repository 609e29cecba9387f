import { expect } from 'chai';
import { Redis } from 'ioredis';
import { createAccount, createKey, writePlansFile } from './helpers/accounts.js';
import { expectSchema } from './helpers/response-schema.js';
import { call, startTestService, testEnv, type TestService } from './helpers/service.js';
import { eventually, until } from './helpers/wait.js';
import { minuteKey, minuteOf } from '../src/monitor/live-store.js';
import { direction, TREND_RULES } from '../src/monitor/trend.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A cache lookup that misses: 404, counted as a failed request and a cache miss. */
const miss = (base: string, key: string, q = 'nothing stored under this') => call(base, `/v1/cache/query?q=${encodeURIComponent(q)}`, { key });

const live = async (base: string, options: { key?: string; account?: string; mode?: string } = {}) => {
  const params = new URLSearchParams({ ...(options.account ? { account_id: options.account } : {}), ...(options.mode ? { mode: options.mode } : {}) });
  const query = params.size > 0 ? `?${params}` : '';
  const response = await call(base, `/v1/metrics/live${query}`, options.key ? { key: options.key } : {});
  expect(response.status, JSON.stringify(response.json)).to.equal(200);
  return response.json.data;
};

describe('GET /v1/metrics/live', function () {
  this.timeout(60_000);
  const env = testEnv();
  const prefix = env.QUEUE_PREFIX!;
  const plans = writePlansFile();
  let a: TestService;
  let b: TestService;
  let redis: Redis;
  const accounts: Record<string, string> = {};
  const keys: Record<string, string> = {};

  before(async () => {
    // Two API processes on one Redis namespace, one of them running the workers too.
    a = await startTestService({ QUEUE_PREFIX: prefix, PLANS_FILE: plans });
    b = await startTestService({ QUEUE_PREFIX: prefix, PLANS_FILE: plans }, 'api');
    redis = new Redis(REDIS_URL);
    for (const name of ['x', 'y', 'z', 'w', 'v']) {
      accounts[name] = await createAccount(a.url, 'pro');
      keys[name] = (await createKey(a.url, { account_id: accounts[name] })).key;
    }
  });
  after(async () => {
    redis.disconnect();
    await Promise.all([a?.close(), b?.close()]);
  });

  it('answers every field of 2.10 with its type, in the envelope', async () => {
    const response = await call(a.url, '/v1/metrics/live', { key: keys.z! });
    expect(response.status).to.equal(200);
    expect(response.json.success).to.equal(true);
    expect(response.json.request_id).to.match(/^req_/);
    const data = response.json.data;
    expectSchema('metrics-live.response', data);
    expect(data.scope).to.deep.equal({ account_id: accounts.z, mode: 'live' });
    for (const field of ['requests_per_minute', 'active_connections', 'queue_depth']) {
      expect(Number.isInteger(data.current_load[field]), field).to.equal(true);
    }
    for (const field of ['cpu_usage', 'memory_usage']) expect(data.current_load[field], field).to.be.a('number').within(0, 1);
    // The request reading the figures is itself in flight.
    expect(data.current_load.active_connections).to.be.at.least(1);
    expect(data.current_load.memory_usage).to.be.above(0);
    for (const field of ['total_requests', 'successful_requests', 'failed_requests', 'cache_hits', 'cache_misses']) {
      expect(Number.isInteger(data.last_5_minutes[field]), field).to.equal(true);
    }
    expect(data.last_5_minutes.total_requests).to.equal(0);
    expect(data.last_5_minutes.avg_response_time).to.equal(null);
    expect(data.alerts).to.deep.equal([]);
    for (const figure of ['response_time', 'error_rate', 'cache_hit_rate', 'request_volume']) {
      expect(data.trending[figure], figure).to.be.oneOf(['stable', 'increasing', 'decreasing']);
    }

    // The key's own request is counted once answered; with figures, the mean is a number.
    const again = await live(a.url, { key: keys.z! });
    expect(again.last_5_minutes.total_requests).to.equal(1);
    expect(again.last_5_minutes.successful_requests).to.equal(1);
    expect(again.last_5_minutes.avg_response_time).to.be.a('number').above(0);
    expectSchema('metrics-live.response', again);
  });

  it('reports the same figures from two API processes, summed over both', async () => {
    const x = keys.x!;
    const stored = await call(a.url, '/v1/cache/store', { key: x, body: { query: 'shared live figures', content: { answer: 42 } } });
    expect(stored.status, JSON.stringify(stored.json)).to.equal(200);
    const hit = await call(b.url, '/v1/cache/query?q=shared%20live%20figures', { key: x });
    expect(hit.status).to.equal(200);
    for (const base of [a.url, a.url, b.url]) expect((await miss(base, x)).status).to.equal(404);

    const expected = { total_requests: 5, successful_requests: 2, failed_requests: 3, cache_hits: 1, cache_misses: 3 };
    // Read at once from both (the master key's own reads are not the account's).
    const both = async () => Promise.all([live(a.url, { account: accounts.x! }), live(b.url, { account: accounts.x! })]);
    const [fromA, fromB] = await eventually(async () => {
      const pair = await both();
      const same = JSON.stringify(pair[0].last_5_minutes) === JSON.stringify(pair[1].last_5_minutes)
        && pair[0].current_load.requests_per_minute === pair[1].current_load.requests_per_minute;
      if (same && pair[0].last_5_minutes.total_requests === 5) return pair;
      // Each process writes its snapshot once a second: give both time to write theirs before reading again.
      await new Promise((resolve) => setTimeout(resolve, 1100));
      return undefined;
    }, 15_000);
    expect(fromA.scope).to.deep.equal({ account_id: accounts.x, mode: 'live' });
    expect(fromA.last_5_minutes).to.include(expected);
    expect(fromA.last_5_minutes).to.deep.equal(fromB.last_5_minutes);
    expect(fromA.trending).to.deep.equal(fromB.trending);
    // Each process answered only part of the requests; the deployment's rate counts them all.
    expect(fromA.current_load.requests_per_minute).to.be.at.least(5).and.equal(fromB.current_load.requests_per_minute);
    expect(fromA.current_load.queue_depth).to.equal(fromB.current_load.queue_depth);

    // The account's own key sees the same, from either process.
    const own = await live(b.url, { key: x });
    expect(own.scope).to.deep.equal({ account_id: accounts.x, mode: 'live' });
    expect(own.last_5_minutes).to.include(expected);
  });

  it("counts each account's requests apart, and sandbox requests apart from live ones", async () => {
    const before = await eventually(async () => {
      const data = await live(a.url, { account: accounts.x! });
      return data.last_5_minutes.total_requests >= 6 ? data : undefined;
    });
    for (const base of [a.url, b.url, b.url, a.url]) await miss(base, keys.y!);
    const sandbox = (await createKey(a.url, { account_id: accounts.x, mode: 'test' })).key as string;
    for (const base of [a.url, b.url]) await miss(base, sandbox);

    const y = await eventually(async () => {
      const data = await live(a.url, { account: accounts.y! });
      return data.last_5_minutes.total_requests === 4 ? data : undefined;
    }, 10_000);
    expect(y.last_5_minutes).to.include({ failed_requests: 4, cache_misses: 4, cache_hits: 0 });
    const sandboxView = await eventually(async () => {
      const data = await live(b.url, { key: sandbox });
      return data.last_5_minutes.total_requests === 2 ? data : undefined;
    }, 10_000);
    expect(sandboxView.scope).to.deep.equal({ account_id: accounts.x, mode: 'test' });
    // The master key reads them by naming the account and the mode, or the mode alone (every account).
    const named = await live(a.url, { account: accounts.x!, mode: 'test' });
    expect(named.scope).to.deep.equal({ account_id: accounts.x, mode: 'test' });
    expect(named.last_5_minutes.total_requests).to.be.at.least(2);
    const sandboxes = await live(a.url, { mode: 'test' });
    expect(sandboxes.scope).to.deep.equal({ account_id: null, mode: 'test' });
    expect(sandboxes.last_5_minutes.total_requests).to.be.at.least(named.last_5_minutes.total_requests);
    // Neither y's nor the sandbox's requests reached x's live figures.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const after = await live(b.url, { account: accounts.x! });
    expect(after.last_5_minutes).to.deep.equal(before.last_5_minutes);

    // The master key without account_id sees the whole deployment: every account's requests and its own.
    const all = await live(a.url);
    expect(all.scope).to.deep.equal({ account_id: null, mode: null });
    expect(all.last_5_minutes.total_requests).to.be.above(after.last_5_minutes.total_requests + y.last_5_minutes.total_requests + 2);
  });

  it('files the requests of a refused key under its account, as the audit log does', async () => {
    const revoked = (await createKey(a.url, { account_id: accounts.v })) as { id: string; key: string };
    expect((await call(a.url, `/v1/auth/keys/${revoked.id}/revoke`, { body: {} })).status).to.equal(200);
    for (const base of [a.url, b.url]) expect((await miss(base, revoked.key)).status).to.equal(401);
    const data = await eventually(async () => {
      const figures = await live(b.url, { account: accounts.v! });
      return figures.last_5_minutes.total_requests === 2 ? figures : undefined;
    }, 10_000);
    expect(data.last_5_minutes).to.include({ failed_requests: 2, cache_hits: 0, cache_misses: 0 });
  });

  it('trends each figure of the last 5 minutes against the 30 before, past a dead band', async () => {
    // The 30 earlier minutes as the layout of src/monitor/live-store.ts holds them: one request a
    // minute, each a cache hit taking 10 s, none failed.
    const now = minuteOf(Date.now());
    const field = (counter: string) => `acct:${accounts.w}:live|${counter}`;
    const multi = redis.multi();
    for (let minute = now - 34; minute <= now - 5; minute++) {
      multi.hset(minuteKey(prefix, minute), field('n'), 1, field('us'), 10_000_000, field('okus'), 10_000_000, field('hit'), 1);
      multi.pexpire(minuteKey(prefix, minute), 600_000);
    }
    await multi.exec();
    const steady = await live(a.url, { account: accounts.w! });
    expect(steady.trending).to.deep.equal({ response_time: 'stable', error_rate: 'stable', cache_hit_rate: 'stable', request_volume: 'stable' });

    // Now 15 quick misses in under 5 minutes: three times the volume, all failed, none cached.
    for (let i = 0; i < 15; i++) await miss(i % 2 ? a.url : b.url, keys.w!);
    const moved = await eventually(async () => {
      const data = await live(b.url, { account: accounts.w! });
      return data.last_5_minutes.total_requests === 15 ? data : undefined;
    }, 10_000);
    expect(moved.trending).to.deep.equal({
      response_time: 'decreasing', error_rate: 'increasing', cache_hit_rate: 'decreasing', request_volume: 'increasing',
    });
  });

  it('names the bad parameter, and lets only the master key name another account', async () => {
    const unknown = await call(a.url, '/v1/metrics/live?window=5m');
    expect(unknown.status).to.equal(400);
    expect(unknown.json.success).to.equal(false);
    expect(unknown.json.error).to.include({ code: 'INVALID_PARAMETER' });
    expect(unknown.json.error.details.parameter).to.equal('window');

    const empty = await call(a.url, '/v1/metrics/live?account_id=');
    expect(empty.status).to.equal(400);
    expect(empty.json.error.details.parameter).to.equal('account_id');

    const tooLong = await call(a.url, `/v1/metrics/live?account_id=${'a'.repeat(33)}`);
    expect(tooLong.status).to.equal(400);
    expect(tooLong.json.error.details.parameter).to.equal('account_id');

    const badMode = await call(a.url, '/v1/metrics/live?mode=staging');
    expect(badMode.status).to.equal(400);
    expect(badMode.json.error.details.parameter).to.equal('mode');

    const missing = await call(a.url, '/v1/metrics/live?account_id=acct_nobody');
    expect(missing.status).to.equal(404);
    expect(missing.json.error).to.include({ code: 'NOT_FOUND' });
    expect(missing.json.error.details).to.include({ resource: 'account', id: 'acct_nobody' });

    const other = await call(a.url, `/v1/metrics/live?account_id=${accounts.y}`, { key: keys.x! });
    expect(other.status).to.equal(403);
    expect(other.json.error).to.include({ code: 'INSUFFICIENT_PERMISSIONS' });

    const otherMode = await call(a.url, '/v1/metrics/live?mode=test', { key: keys.x! });
    expect(otherMode.status).to.equal(403);
    expect(otherMode.json.error).to.include({ code: 'INSUFFICIENT_PERMISSIONS' });

    const ownNamed = await call(a.url, `/v1/metrics/live?account_id=${accounts.x}`, { key: keys.x! });
    expect(ownNamed.status).to.equal(200);
    expect(ownNamed.json.data.scope.account_id).to.equal(accounts.x);

    const noKey = await call(a.url, '/v1/metrics/live', { key: null });
    expect(noKey.status).to.equal(401);

    const scoped = (await createKey(a.url, { account_id: accounts.x, type: 'scoped', permissions: ['search'] })).key as string;
    const refused = await call(a.url, '/v1/metrics/live', { key: scoped });
    expect(refused.status).to.equal(403);
    expect(refused.json.error.details.required_permission).to.equal('monitor:read');
  });

  it('counts the processes of the deployment that report, and forgets one that stopped', async () => {
    const extra = await startTestService({ QUEUE_PREFIX: prefix, PLANS_FILE: plans }, 'api');
    await until(async () => (await redis.hlen(`${prefix}:live:procs`)) === 3, 5000);
    await extra.close();
    // A clean shutdown removes its snapshot at once.
    expect(await redis.hlen(`${prefix}:live:procs`)).to.equal(2);
  });
});

describe('trending rule', () => {
  it('is stable inside the dead band and without enough requests', () => {
    const rule = TREND_RULES.response_time;
    expect(direction(0.110, 100, 0.100, 100, rule)).to.equal('stable');
    expect(direction(0.130, 100, 0.100, 100, rule)).to.equal('increasing');
    expect(direction(0.070, 100, 0.100, 100, rule)).to.equal('decreasing');
    // 20 % of 10 ms is under the 10 ms floor.
    expect(direction(0.015, 100, 0.010, 100, rule)).to.equal('stable');
    expect(direction(0.5, 9, 0.1, 100, rule)).to.equal('stable');
    expect(direction(0.5, 100, 0.1, 9, rule)).to.equal('stable');
    const volume = TREND_RULES.request_volume;
    expect(direction(3, 15, 1, 30, volume)).to.equal('increasing');
    expect(direction(1.5, 7, 1, 30, volume)).to.equal('stable');
    expect(direction(0, 0, 2, 60, volume)).to.equal('decreasing');
  });
});
