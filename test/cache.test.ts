import { createHash, randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { cacheKey, canonicalJson, normaliseQuery, queryHash } from '../src/cache/cache-key.js';
import { ResultCache, type CacheEntry } from '../src/cache/result-cache.js';
import { NearCache } from '../src/cache/near-cache.js';
import { createMetrics } from '../src/metrics/metrics.js';
import { createLogger } from '../src/log/logger.js';
import { call, startTestService, TestClock, type TestService } from './helpers/service.js';
import { createAccount, createKey, writePlansFile } from './helpers/accounts.js';
import { runPrefix } from './helpers/run-scope.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const silentLogger = createLogger('silent', 'api');

/** Polls `condition` every 5 ms for up to two seconds. */
async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 2000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`waited 2 s for ${what}`);
    await delay(5);
  }
}

describe('result cache', function () {
  this.timeout(60_000);

  describe('keys', () => {
    it('normalises width, case, spacing and the folds of the search index', () => {
      expect(normaliseQuery('  What is\tthe  SPEED\u00a0of light? ')).to.equal('what is the speed of light?');
      expect(normaliseQuery('ＧＰＴ－４ Straße')).to.equal(normaliseQuery('gpt-4 STRASSE'));
      expect(normaliseQuery('İstanbul ΟΔΟΣ')).to.equal('istanbul οδοσ');
    });

    it('hashes the normalised query for the audit, the same for spelling variants, long queries too', () => {
      const hex = (text: string) => createHash('sha256').update(text).digest('hex');
      expect(queryHash('  What is\tthe  SPEED of light? ')).to.equal(`sha256:${hex('what is the speed of light?')}`);
      // Asked again (remembered) and in another spelling, the same hash.
      expect(queryHash('what is the speed of light?')).to.equal(queryHash('  What is\tthe  SPEED of light? '));
      const long = `${'Why '.repeat(200)}?`;
      expect(queryHash(long)).to.equal(`sha256:${hex(normaliseQuery(long))}`);
      expect(normaliseQuery(long)).to.equal(normaliseQuery(long.toUpperCase()));
    });

    it('builds one key per normalised query and answer-changing parameters, whatever their order', () => {
      expect(cacheKey('Tides', { max_results: 5, language: 'en' })).to.equal(cacheKey(' tides ', { language: 'en', max_results: 5 }));
      expect(cacheKey('tides', { options: { deep: true, timeout: undefined } })).to.equal(cacheKey('tides', { options: { deep: true } }));
      expect(cacheKey('tides', { max_results: 5 })).not.to.equal(cacheKey('tides', { max_results: 6 }));
      expect(cacheKey('tides', {})).not.to.equal(cacheKey('tides', { max_results: 5 }));
      // No query text can pass for a parameter.
      expect(cacheKey('tides",{"max_results":5}', {})).not.to.equal(cacheKey('tides', { max_results: 5 }));
      expect(canonicalJson({ b: [1, { d: 2, c: 3 }], a: 'x' })).to.equal('{"a":"x","b":[1,{"c":3,"d":2}]}');
    });

    it('hashes long keys to a fixed length', () => {
      const long = cacheKey('x'.repeat(500), { domain_filter: { include: ['a.example', 'b.example'] } });
      expect(long).to.match(/^#[A-Za-z0-9_-]{43}$/);
      expect(long).to.equal(cacheKey('X'.repeat(500), { domain_filter: { include: ['a.example', 'b.example'] } }));
      expect(cacheKey('short', {})).to.equal('["short",{}]');
    });
  });

  describe('store (Redis)', () => {
    const prefix = runPrefix();
    const namespace = 'account:acct_store_test:live';
    const base = `${prefix}:cache:{${namespace}}:`;
    let redis: Redis;
    let clock: TestClock;
    let cache: ResultCache;
    const put = (key: string, tags: string[], ttl = 60) => cache.put(namespace, key, { key }, { query: key, ttl, trustLevel: 'medium', tags });

    before(() => {
      redis = new Redis(REDIS_URL);
      clock = new TestClock();
      cache = new ResultCache(redis, prefix, clock, createMetrics('api'), { namespaceMaxBytes: 64 * 1024 * 1024, logger: silentLogger });
    });
    after(async () => {
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
    });

    it('drops expired entries and their index entries as later entries are stored', async () => {
      await put('short-lived', ['t1'], 3);
      clock.advance(3500);
      expect(await cache.get(namespace, 'short-lived')).to.equal(null);
      // Redis still holds it (its own expiry runs on real time); the next store removes it.
      expect(await redis.exists(`${base}e:short-lived`)).to.equal(1);
      await put('fresh', ['t2']);
      expect(await redis.exists(`${base}e:short-lived`)).to.equal(0);
      expect(await redis.zscore(`${base}s`, 'short-lived')).to.equal(null);
      expect(await redis.zscore(`${base}x`, 'short-lived')).to.equal(null);
      expect(await redis.exists(`${base}t:t1`)).to.equal(0);
      // Every key of the namespace expires by itself: nothing outlives its longest-lived entry.
      for (const key of await redis.keys(`${base}*`)) {
        const ttl = await redis.pttl(key);
        expect(ttl, key).to.be.within(1, 60_000);
      }
    });

    it('clears more entries than one batch holds, by tag and stored time together', async () => {
      const older = Array.from({ length: 700 }, (_, i) => `old-${i}`);
      for (const key of older) await put(key, ['bulk']);
      clock.advance(1000);
      const cut = clock.now();
      const newer = Array.from({ length: 600 }, (_, i) => `new-${i}`);
      // Shorter-lived, so they come first in the tag's set (ordered by expiry): the clear walks
      // past 600 kept entries, more than a batch, to reach the older ones.
      for (const key of newer) await put(key, ['bulk'], 30);
      expect(await cache.clear(namespace, { tags: ['bulk'], olderThan: cut })).to.equal(700);
      expect(await redis.zcard(`${base}t:bulk`)).to.equal(600);
      expect(await cache.get(namespace, 'new-599')).to.include({ query: 'new-599' });
      expect(await cache.get(namespace, 'old-0')).to.equal(null);
      expect(await cache.clear(namespace, { olderThan: new Date(clock.now().getTime() + 1) })).to.equal(601);
      expect(await redis.keys(`${base}*`)).to.deep.equal([]);
    });

    it('keeps a namespace within its budget by evicting the entries nearest expiry', async () => {
      const metrics = createMetrics('api');
      const small = new ResultCache(redis, prefix, clock, metrics, { namespaceMaxBytes: 10_000, logger: silentLogger });
      const tight = 'account:acct_budget_test:live';
      const tightBase = `${prefix}:cache:{${tight}}:`;
      const entry = (q: string, ttl: number) => small.put(tight, q, 'x'.repeat(3000), { query: q, ttl, trustLevel: 'low', tags: ['budget'] });
      await entry('long', 600);
      await entry('short', 60);
      await entry('middle', 300);
      expect(Number(await redis.get(`${tightBase}b`))).to.be.within(9000, 10_000);
      await entry('newest', 30);
      // The entry nearest expiry goes first, never the one being stored (here the nearest itself).
      expect(await small.get(tight, 'short')).to.equal(null);
      for (const q of ['long', 'middle', 'newest']) expect(await small.get(tight, q), q).to.include({ query: q });
      expect((await metrics.cacheEvicted.get()).values[0]!.value).to.equal(1);
      const sizes = (await redis.hvals(`${tightBase}n`)).map(Number);
      expect(Number(await redis.get(`${tightBase}b`))).to.equal(sizes.reduce((a, b) => a + b, 0));
      expect(await small.clear(tight, { tags: ['budget'] })).to.equal(3);
      expect(await redis.keys(`${tightBase}*`)).to.deep.equal([]);
    });

    it('does not let a tag index entry left over from an earlier life of a key clear its new life', async () => {
      await put('reused', ['old-tag'], 1);
      // The entry vanishes without the store's help (as Redis's own expiry would do it)...
      await redis.del(`${base}e:reused`);
      // ...and the key is stored again, without the tag, while the tag set still lists it.
      await put('reused', ['new-tag']);
      expect(await redis.zscore(`${base}t:old-tag`, 'reused')).not.to.equal(null);
      expect(await cache.clear(namespace, { tags: ['old-tag'] })).to.equal(0);
      expect(await cache.get(namespace, 'reused')).to.include({ query: 'reused' });
      expect(await redis.exists(`${base}t:old-tag`)).to.equal(0);
    });

    describe('a store Redis cannot complete', () => {
      // Tags Redis's Lua JSON decoder refuses: a lone surrogate, which the HTTP edge refuses too.
      const unreadable = ['ok', '\ud800'];
      const poisoned = 'account:acct_poison_test:live';
      const poisonedBase = `${prefix}:cache:{${poisoned}}:`;

      it('leaves nothing behind', async () => {
        const error = await cache.put(poisoned, 'poison', { p: 1 }, { query: 'poison', ttl: 60, trustLevel: 'low', tags: unreadable }).catch((e: unknown) => e);
        expect(error).to.be.instanceOf(Error);
        expect(await redis.keys(`${poisonedBase}*`)).to.deep.equal([]);
      });

      it('can still drop an entry stored with such tags before stores checked them, by clear and by eviction', async () => {
        // Written as the unchecked script wrote it, up to the tags' index entries.
        const legacy = async (m: string): Promise<void> => {
          const now = clock.now().getTime();
          await redis.hset(`${poisonedBase}e:${m}`, { q: m, c: '1', ttl: '60', tl: 'low', tg: JSON.stringify(unreadable), sa: now, ea: now + 60_000, h: 0 });
          await redis.zadd(`${poisonedBase}s`, now, m);
          await redis.zadd(`${poisonedBase}x`, now + 60_000, m);
          await redis.hset(`${poisonedBase}n`, m, 300);
          await redis.incrby(`${poisonedBase}b`, 300);
          await redis.zadd(`${poisonedBase}t:ok`, now + 60_000, m);
        };
        await legacy('old-a');
        expect(await cache.clear(poisoned, { olderThan: new Date(clock.now().getTime() + 1) })).to.equal(1);
        await legacy('old-b');
        expect(await cache.clear(poisoned, { tags: ['ok'] })).to.equal(1);
        expect(await redis.keys(`${poisonedBase}*`)).to.deep.equal([]);

        await legacy('old-c');
        const small = new ResultCache(redis, prefix, clock, createMetrics('api'), { namespaceMaxBytes: 1000, logger: silentLogger });
        await small.put(poisoned, 'new', 'x'.repeat(500), { query: 'new', ttl: 600, trustLevel: 'low', tags: ['ok'] });
        expect(await small.get(poisoned, 'old-c')).to.equal(null);
        expect(await redis.exists(`${poisonedBase}e:old-c`)).to.equal(0);
        expect(await small.clear(poisoned, { tags: ['ok'] })).to.equal(1);
        expect(await redis.keys(`${poisonedBase}*`)).to.deep.equal([]);
      });
    });
  });

  describe('near copies (Redis tracking)', () => {
    const prefix = runPrefix();
    const namespace = 'account:acct_near_test:live';
    const entryKey = (key: string) => `${prefix}:cache:{${namespace}}:e:${key}`;
    const clock = new TestClock();
    let redis: Redis;
    /** What an API process holds: its cache, its copies and their two connections. */
    interface Process { cache: ResultCache; near: NearCache<CacheEntry>; commands: Redis; subscriber: Redis; names: string[] }
    const processes: Process[] = [];

    async function open(): Promise<Process> {
      const names = [`near-commands-${randomUUID()}`, `near-subscriber-${randomUUID()}`];
      const commands = new Redis(REDIS_URL, { connectionName: names[0] });
      const subscriber = new Redis(REDIS_URL, { connectionName: names[1], autoResubscribe: false });
      const near = new NearCache<CacheEntry>(commands, subscriber, `${prefix}:cache:`, 1024 * 1024, silentLogger);
      await near.start();
      const cache = new ResultCache(commands, prefix, clock, createMetrics('api'), { namespaceMaxBytes: 64 * 1024 * 1024, near, logger: silentLogger });
      const process = { cache, near, commands, subscriber, names };
      processes.push(process);
      return process;
    }
    const put = (p: Process, key: string, content: unknown, ttl = 60) =>
      p.cache.put(namespace, key, content, { query: key, ttl, trustLevel: 'medium', tags: [key] });
    /** Reads `key` until `p` holds a copy of it (its own store's invalidation may drop the first). */
    async function copied(p: Process, key: string): Promise<void> {
      await until(async () => {
        await p.cache.get(namespace, key);
        return p.near.get(entryKey(key)) !== undefined;
      }, `a copy of ${key}`);
    }
    /** Runs `use` with copies of strings of its own, on connections of its own. */
    async function withNear(maxBytes: number, use: (near: NearCache<string>) => Promise<void>): Promise<void> {
      const commands = new Redis(REDIS_URL);
      const near = new NearCache<string>(commands, new Redis(REDIS_URL, { autoResubscribe: false }), `${prefix}:cache:`, maxBytes, silentLogger);
      await near.start();
      try {
        await use(near);
      } finally {
        await near.close();
        commands.disconnect();
      }
    }
    /** Kills the named connection, as a network failure would. */
    async function kill(name: string): Promise<void> {
      const line = (await redis.client('LIST') as string).split('\n').find((l) => l.includes(` name=${name} `));
      await redis.client('KILL', 'ID', /\bid=(\d+)/.exec(line!)![1]!);
    }

    before(() => {
      redis = new Redis(REDIS_URL);
    });
    after(async () => {
      for (const p of processes) {
        await p.cache.close();
        await p.near.close();
        p.commands.disconnect();
      }
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
    });

    it('serves repeated reads from a copy and adds their hits to the entry in Redis', async () => {
      const p = await open();
      await put(p, 'repeated', { answer: 42 });
      await copied(p, 'repeated');
      const counted = await p.cache.get(namespace, 'repeated');
      const inRedis = Number(await redis.hget(entryKey('repeated'), 'h'));
      for (let i = 1; i <= 5; i++) {
        const entry = await p.cache.get(namespace, 'repeated');
        expect(entry).to.include({ contentJson: '{"answer":42}', hits: counted!.hits + i });
      }
      // Served without Redis: the entry's count there has not moved...
      expect(Number(await redis.hget(entryKey('repeated'), 'h'))).to.equal(inRedis);
      // ...until the hits are flushed, and then it holds every one of them.
      await p.cache.flushHits();
      expect(Number(await redis.hget(entryKey('repeated'), 'h'))).to.equal(counted!.hits + 5);
    });

    it('drops a copy when another process replaces or clears the entry', async () => {
      const [a, b] = [await open(), await open()];
      await put(a, 'shared', 'first');
      await copied(a, 'shared');
      await put(b, 'shared', 'second');
      await until(() => a.near.get(entryKey('shared')) === undefined, 'the copy to be dropped');
      expect((await a.cache.get(namespace, 'shared'))!.contentJson).to.equal('"second"');
      await copied(a, 'shared');
      expect(await b.cache.clear(namespace, { tags: ['shared'] })).to.equal(1);
      await until(() => a.near.get(entryKey('shared')) === undefined, 'the copy to be dropped');
      expect(await a.cache.get(namespace, 'shared')).to.equal(null);
    });

    it('does not serve a copy past its entry\'s expiry', async () => {
      const p = await open();
      await put(p, 'brief', 'soon gone', 2);
      await copied(p, 'brief');
      clock.advance(2500);
      expect(await p.cache.get(namespace, 'brief')).to.equal(null);
    });

    it('keeps nothing a read returned when the key changed during the read', async () => {
      await withNear(1024 * 1024, async (near) => {
        const key = `${prefix}:cache:raced`;
        await redis.set(key, 'old');
        const read = await near.read(key, async () => {
          const value = await redis.get(key);
          // Another process writes meanwhile; its invalidation arrives before this read's reply.
          await redis.set(key, 'new');
          await delay(200);
          return value;
        }, () => 10);
        expect(read).to.equal('old');
        expect(near.get(key)).to.equal(undefined);
        // An undisturbed read is kept.
        await near.read(key, () => redis.get(key), () => 10);
        expect(near.get(key)).to.equal('new');
      });
    });

    for (const [connection, index] of [['subscriber', 1], ['command', 0]] as const) {
      it(`stops copying while its ${connection} connection is down and tracks writes again once it is back`, async () => {
        const [a, b] = [await open(), await open()];
        await put(a, 'outage', 'before');
        await copied(a, 'outage');
        await kill(a.names[index]!);
        await until(() => !a.near.active, 'copying to stop');
        expect(a.near.get(entryKey('outage'))).to.equal(undefined);
        await put(b, 'outage', 'during');
        expect((await a.cache.get(namespace, 'outage'))!.contentJson).to.equal('"during"');
        // ioredis reconnects by itself; tracking is turned on again on the new connection.
        await until(() => a.near.active, 'copying to resume');
        await copied(a, 'outage');
        await put(b, 'outage', 'after');
        await until(() => a.near.get(entryKey('outage')) === undefined, 'the copy to be dropped');
        expect((await a.cache.get(namespace, 'outage'))!.contentJson).to.equal('"after"');
      });
    }

    it('keeps its copies within their byte budget, dropping the least recently used', async () => {
      await withNear(10_000, async (near) => {
        for (const key of ['a', 'b', 'c', 'd']) await near.read(`${prefix}:cache:${key}`, async () => key, () => 2_400);
        near.get(`${prefix}:cache:a`);
        await near.read(`${prefix}:cache:e`, async () => 'e', () => 2_400);
        expect(['a', 'b', 'c', 'd', 'e'].map((key) => near.get(`${prefix}:cache:${key}`))).to.deep.equal(['a', undefined, 'c', 'd', 'e']);
        // A value over a quarter of the budget is never copied.
        await near.read(`${prefix}:cache:big`, async () => 'big', () => 2_501);
        expect(near.get(`${prefix}:cache:big`)).to.equal(undefined);
      });
    });
  });

  describe('HTTP endpoints', () => {
    const prefix = runPrefix();
    const clock = new TestClock();
    let a: TestService;
    let b: TestService;
    let plans: string;

    before(async () => {
      plans = writePlansFile();
      // Two API processes on one Redis namespace, as a fleet behind a load balancer runs.
      [a, b] = await Promise.all([
        startTestService({ QUEUE_PREFIX: prefix, PLANS_FILE: plans }, 'api', clock),
        startTestService({ QUEUE_PREFIX: prefix, PLANS_FILE: plans }, 'api', clock),
      ]);
    });
    after(async () => {
      await Promise.all([a?.close(), b?.close()]);
      const redis = new Redis(REDIS_URL);
      const keys = await redis.keys(`${prefix}:cache:*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
    });

    /** A key of a new account: every test starts with an empty cache. */
    async function newKey(body: Record<string, unknown> = {}, plan = 'enterprise'): Promise<string> {
      const account = await createAccount(a.url, plan);
      return (await createKey(a.url, { account_id: account, ...body })).key as string;
    }
    const store = (key: string, body: Record<string, unknown>, service = a) =>
      call(service.url, '/v1/cache/store', { key, body });
    const query = (key: string, q: string, service = a) =>
      call(service.url, `/v1/cache/query?q=${encodeURIComponent(q)}`, { key });
    const clear = (key: string, body: unknown, service = a) =>
      call(service.url, '/v1/cache/clear', { key, method: 'DELETE', body });

    it('stores an entry and serves it to any spelling of its query, counting hits', async () => {
      const key = await newKey();
      const content = { summary: 'About 299,792 km/s.', sources: [{ url: 'https://example.com/c' }] };
      const stored = await store(key, { query: 'What is the  Speed of Light?', content, ttl: 600, trust_level: 'high', tags: ['physics', 'faq'] });
      expect(stored.status, JSON.stringify(stored.json)).to.equal(200);
      const entry = stored.json.data;
      expect(entry).to.deep.include({
        query: 'What is the  Speed of Light?', content, ttl: 600, remaining_ttl: 600, trust_level: 'high',
        tags: ['physics', 'faq'], hits: 0, replaced: false,
      });
      expect(Date.parse(entry.expires_at) - Date.parse(entry.stored_at)).to.equal(600_000);
      expect(stored.json.request_id).to.be.a('string');

      const first = await query(key, 'what is the speed of light?');
      expect(first.status).to.equal(200);
      expect(first.headers.get('content-type')).to.match(/^application\/json/);
      const { replaced: _, ...fields } = entry;
      expect(first.json.data).to.deep.equal({ ...fields, hits: 1 });
      const second = await query(key, 'ＷＨＡＴ IS THE SPEED OF LIGHT?');
      expect(second.json.data.hits).to.equal(2);
    });

    it('stores any JSON value with the documented defaults', async () => {
      const key = await newKey();
      for (const content of [null, 0, 'text', [1, 'two'], { deep: { er: [true] } }]) {
        const stored = await store(key, { query: `value ${JSON.stringify(content)}`, content });
        expect(stored.status).to.equal(200);
        expect(stored.json.data).to.deep.include({ content, ttl: 3600, trust_level: 'medium', tags: [] });
        expect((await query(key, `value ${JSON.stringify(content)}`)).json.data.content).to.deep.equal(content);
      }
    });

    it('answers 404 NOT_FOUND for a query without a live entry', async () => {
      const key = await newKey();
      const response = await query(key, 'never stored');
      expect(response.status).to.equal(404);
      expect(response.json.error.code).to.equal('NOT_FOUND');
      expect(response.json.error.details).to.deep.equal({ resource: 'cache_entry', id: 'never stored' });
    });

    it('stops serving an entry when its ttl has passed on the service clock', async () => {
      const key = await newKey();
      await store(key, { query: 'brief', content: 1, ttl: 5 });
      clock.advance(4_000);
      const late = await query(key, 'brief');
      expect(late.status).to.equal(200);
      expect(late.json.data.remaining_ttl).to.equal(1);
      clock.advance(1_500);
      expect((await query(key, 'brief')).status).to.equal(404);
      const again = await store(key, { query: 'brief', content: 2, ttl: 5 });
      expect(again.json.data.replaced).to.equal(false);
    });

    it('replaces an entry stored under the same normalised query', async () => {
      const key = await newKey();
      await store(key, { query: 'Overwrite me', content: 'v1', ttl: 60, trust_level: 'low', tags: ['old'] });
      await query(key, 'overwrite me');
      const replaced = await store(key, { query: 'OVERWRITE  me', content: 'v2', ttl: 120, trust_level: 'verified', tags: ['new'] });
      expect(replaced.status).to.equal(200);
      expect(replaced.json.data).to.deep.include({ query: 'OVERWRITE  me', content: 'v2', ttl: 120, trust_level: 'verified', tags: ['new'], hits: 0, replaced: true });
      // The old tags went with the old entry.
      expect((await clear(key, { tags: ['old'] })).json.data).to.deep.equal({ deleted: 0 });
      expect((await query(key, 'overwrite me')).json.data).to.deep.include({ content: 'v2', hits: 1 });
    });

    it('clears by tags (any of them), by older_than, and by both', async () => {
      const key = await newKey();
      const put = (q: string, tags: string[]) => store(key, { query: q, content: q, tags });
      const live = async (...queries: string[]) => {
        const statuses = await Promise.all(queries.map(async (q) => (await query(key, q)).status));
        return queries.filter((_, i) => statuses[i] === 200);
      };
      await put('a1', ['a']);
      await put('b1', ['b']);
      await put('ab1', ['a', 'b']);
      await put('none1', []);
      clock.advance(60_000);
      const cut = clock.now().toISOString();
      clock.advance(1_000);
      await put('a2', ['a']);
      await put('b2', ['b']);
      await put('none2', []);

      // Both filters: tagged a, and stored before the cut.
      expect((await clear(key, { tags: ['a'], older_than: cut })).json.data).to.deep.equal({ deleted: 2 });
      expect(await live('a1', 'ab1', 'a2', 'b1')).to.deep.equal(['a2', 'b1']);
      // Any of the tags, whenever stored.
      expect((await clear(key, { tags: ['a', 'b'] })).json.data).to.deep.equal({ deleted: 3 });
      expect(await live('a2', 'b1', 'b2', 'none1', 'none2')).to.deep.equal(['none1', 'none2']);
      // Stored before the cut, whatever the tags.
      const byTime = await clear(key, { older_than: cut });
      expect(byTime.status).to.equal(200);
      expect(byTime.json.data).to.deep.equal({ deleted: 1 });
      expect(await live('none1', 'none2')).to.deep.equal(['none2']);
    });

    it('keeps accounts, and live and sandbox keys, apart', async () => {
      const accountA = await createAccount(a.url, 'enterprise');
      const liveA = (await createKey(a.url, { account_id: accountA })).key as string;
      const sandboxA = (await createKey(a.url, { account_id: accountA, mode: 'test' })).key as string;
      const liveB = await newKey();
      const secondA = (await createKey(a.url, { account_id: accountA })).key as string;

      await store(liveA, { query: 'shared question', content: 'live A', tags: ['t'] });
      expect((await query(secondA, 'shared question')).json.data.content).to.equal('live A');
      expect((await query(liveB, 'shared question')).status).to.equal(404);
      expect((await query(sandboxA, 'shared question')).status).to.equal(404);
      expect((await call(a.url, '/v1/cache/query?q=shared%20question')).status, 'master key').to.equal(404);

      await store(liveB, { query: 'shared question', content: 'live B', tags: ['t'] });
      await store(sandboxA, { query: 'shared question', content: 'sandbox A', tags: ['t'] });
      expect((await query(liveA, 'shared question')).json.data.content).to.equal('live A');
      expect((await query(sandboxA, 'shared question')).json.data.content).to.equal('sandbox A');

      expect((await clear(liveB, { tags: ['t'] })).json.data.deleted).to.equal(1);
      expect((await clear(sandboxA, { tags: ['t'] })).json.data.deleted).to.equal(1);
      expect((await query(liveA, 'shared question')).json.data.content).to.equal('live A');
    });

    it('gives the master key a namespace of its own', async () => {
      const key = await newKey();
      await store(key, { query: 'operator question', content: 'account' });
      const master = await call(a.url, '/v1/cache/query?q=operator%20question');
      expect(master.status).to.equal(404);
      await call(a.url, '/v1/cache/store', { body: { query: 'operator question', content: 'master' } });
      expect((await call(a.url, '/v1/cache/query?q=operator%20question')).json.data.content).to.equal('master');
      expect((await query(key, 'operator question')).json.data.content).to.equal('account');
    });

    it('requires the cache scope', async () => {
      const account = await createAccount(a.url, 'enterprise');
      const { key } = await createKey(a.url, { account_id: account, type: 'scoped', permissions: ['search'] });
      const cases: Array<[Promise<{ status: number; json: any }>, string]> = [
        [query(key, 'x'), 'cache:read'],
        [store(key, { query: 'x', content: 1 }), 'cache:write'],
        [clear(key, { tags: ['x'] }), 'cache:write'],
      ];
      for (const [pending, permission] of cases) {
        const response = await pending;
        expect(response.status).to.equal(403);
        expect(response.json.error.code).to.equal('INSUFFICIENT_PERMISSIONS');
        expect(response.json.error.details.required_permission).to.equal(permission);
      }
      const allowed = await createKey(a.url, { account_id: account, type: 'scoped', permissions: ['cache'] });
      expect((await store(allowed.key, { query: 'x', content: 1 })).status).to.equal(200);
    });

    it('refuses invalid requests with the catalogue codes', async () => {
      const key = await newKey();
      const expectError = async (pending: Promise<{ status: number; json: any }>, code: string, details?: Record<string, unknown>) => {
        const response = await pending;
        expect(response.status, JSON.stringify(response.json)).to.equal(400);
        expect(response.json.error.code).to.equal(code);
        if (details) expect(response.json.error.details).to.deep.include(details);
      };
      await expectError(call(a.url, '/v1/cache/query', { key }), 'QUERY_REQUIRED', { parameter: 'q' });
      await expectError(query(key, '   '), 'QUERY_REQUIRED');
      await expectError(query(key, 'q'.repeat(501)), 'QUERY_TOO_LONG', { max_length: 500, provided_length: 501 });
      await expectError(call(a.url, '/v1/cache/query?q=x&limit=3', { key }), 'INVALID_PARAMETER', { parameter: 'limit' });
      await expectError(store(key, { query: 'x' }), 'INVALID_PARAMETER', { parameter: 'content' });
      await expectError(store(key, { content: 1 }), 'QUERY_REQUIRED');
      await expectError(store(key, { query: 'x', content: 1, ttl: 0 }), 'INVALID_PARAMETER', { parameter: 'ttl' });
      await expectError(store(key, { query: 'x', content: 1, ttl: 1.5 }), 'INVALID_PARAMETER', { parameter: 'ttl' });
      await expectError(store(key, { query: 'x', content: 1, trust_level: 'total' }), 'INVALID_PARAMETER', { parameter: 'trust_level' });
      await expectError(store(key, { query: 'x', content: 1, tags: ['a', 'a'] }), 'INVALID_PARAMETER', { parameter: 'tags' });
      await expectError(clear(key, {}), 'INVALID_PARAMETER', { parameter: 'body' });
      await expectError(clear(key, { tags: [] }), 'INVALID_PARAMETER', { parameter: 'tags' });
      await expectError(clear(key, { older_than: 'yesterday' }), 'INVALID_PARAMETER', { parameter: 'older_than' });
      // Content over 1 MB as JSON, in a body well within the 10 MB request limit.
      const big = await store(key, { query: 'big', content: 'x'.repeat(1024 * 1024) });
      await expectError(Promise.resolve(big), 'CONTENT_TOO_LARGE', { max_size_mb: 1, provided_size_mb: 1.01 });
      // The advice names the limit this request broke, not the request body's.
      expect(big.json.error.suggestion).to.equal('Send at most 1 MB.');
      expect((await query(key, 'big')).status).to.equal(404);
      expect((await store(key, { query: 'just fits', content: 'x'.repeat(1024 * 1024 - 2) })).status).to.equal(200);
    });

    it('shares entries between API processes', async () => {
      const key = await newKey();
      const [fromA, fromB] = await Promise.all([
        store(key, { query: 'from a', content: 'A', tags: ['both'] }, a),
        store(key, { query: 'from b', content: 'B', tags: ['both'] }, b),
      ]);
      expect([fromA.status, fromB.status]).to.deep.equal([200, 200]);
      expect((await query(key, 'from a', b)).json.data).to.include({ content: 'A', hits: 1 });
      expect((await query(key, 'from b', a)).json.data).to.include({ content: 'B', hits: 1 });
      // Each process adds the hits it served to the shared count within a second.
      await delay(1500);
      expect((await query(key, 'from a', a)).json.data.hits).to.equal(2);
      // Concurrent stores of one query from both processes: one wins whole, the other replaced it.
      const racing = await Promise.all([
        store(key, { query: 'race', content: 'A', tags: ['a'] }, a),
        store(key, { query: 'race', content: 'B', tags: ['b'] }, b),
      ]);
      expect(racing.map((r) => r.json.data.replaced).sort()).to.deep.equal([false, true]);
      const winner = (await query(key, 'race', a)).json.data;
      expect(winner.tags).to.deep.equal([winner.content.toLowerCase()]);
      expect((await clear(key, { tags: ['both', 'a', 'b'] }, b)).json.data.deleted).to.equal(3);
      expect((await query(key, 'from b', a)).status).to.equal(404);
    });

    it('serves from its copies what another process last stored, counting every hit', async () => {
      const key = await newKey();
      expect((await store(key, { query: 'copied', content: 'v1' }, a)).status).to.equal(200);
      for (let i = 1; i <= 3; i++) expect((await query(key, 'copied', b)).json.data).to.include({ content: 'v1', hits: i });
      expect((await store(key, { query: 'copied', content: 'v2' }, a)).status).to.equal(200);
      await until(async () => (await query(key, 'copied', b)).json.data.content === 'v2', 'b to serve v2');
    });

    it('counts cache requests against the monthly quota, like the other metered endpoints', async () => {
      const key = await newKey({}, 'free'); // 5 requests a month on the test plans
      for (let i = 0; i < 5; i++) expect((await query(key, 'metered')).status).to.equal(404);
      const refused = await store(key, { query: 'metered', content: 1 });
      expect(refused.status).to.equal(429);
      expect(refused.json.error.code).to.equal('MONTHLY_LIMIT_EXCEEDED');
    });

    it('reports hits, misses, stores and clears as metrics', async () => {
      const read = async () => {
        const text = await (await fetch(`${b.url}/metrics`)).text();
        const value = (pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? NaN);
        return {
          hit: value(/^sev_cache_requests_total\{outcome="hit",role="api"\} (\d+)$/m),
          miss: value(/^sev_cache_requests_total\{outcome="miss",role="api"\} (\d+)$/m),
          stored: value(/^sev_cache_entries_stored_total\{role="api"\} (\d+)$/m),
          cleared: value(/^sev_cache_entries_cleared_total\{role="api"\} (\d+)$/m),
        };
      };
      const key = await newKey();
      const before = await read();
      await store(key, { query: 'metric', content: 1, tags: ['m'] }, b);
      await query(key, 'metric', b);
      await query(key, 'metric', b);
      await query(key, 'no such entry', b);
      await clear(key, { tags: ['m'] }, b);
      const after = await read();
      expect({
        hit: after.hit - before.hit, miss: after.miss - before.miss, stored: after.stored - before.stored, cleared: after.cleared - before.cleared,
      }).to.deep.equal({ hit: 2, miss: 1, stored: 1, cleared: 1 });
    });
  });
});
