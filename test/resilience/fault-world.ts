import { expect } from 'chai';
import { databaseUrl } from '../helpers/database.js';
import { createAccount, createKey, writePlansFile } from '../helpers/accounts.js';
import type { PageServer } from '../helpers/page-server.js';
import { startPrivateMariaDb, startPrivateRedis, type PrivateServer } from '../helpers/private-servers.js';
import type { ServiceProcess } from '../helpers/service-process.js';
import { call } from '../helpers/service.js';
import { openStorage, type Storage } from '../../src/storage/connection.js';
import { until } from '../helpers/wait.js';
import { corpus, startArticleSite, STORED_QUERY, TOPIC } from './fault-load.js';

/** Pages the extractions read: enough that a run never asks for one twice. */
export const PAGES = 20_000;

/**
 * The world of the fault tests: a Redis and a MariaDB of their own (never the shared ones), a
 * site of articles, and a plan without limits for the accounts each fault's load runs under.
 */
export interface FaultWorld {
  redis: PrivateServer;
  mariadb: PrivateServer;
  databaseUrl: string;
  /** The private database, for reading the audit log and the durable usage counts. */
  storage: Storage;
  site: PageServer;
  /** Environment every process of the service under test gets. */
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function startFaultWorld(): Promise<FaultWorld> {
  const [redis, mariadb, site] = await Promise.all([startPrivateRedis(), startPrivateMariaDb(), startArticleSite(PAGES)]);
  const url = databaseUrl(mariadb.url, 'sev_faults');
  const plans = writePlansFile([{ name: 'unlimited', rate_limit_per_minute: 1_000_000, monthly_limit: null, sandbox_monthly_limit: null, daily_limit_per_key: null, features: ['scoped_keys'] }]);
  const env = {
    REDIS_URL: redis.url, DATABASE_URL: url, PLANS_FILE: plans, RATE_LIMIT_PER_MINUTE: '1000000',
    // The extractions of several clients at once read pages of one host.
    FETCH_PER_HOST_CONCURRENCY: '16', SHUTDOWN_TIMEOUT_MS: '5000',
  };
  const storage = openStorage(url, 2);
  return {
    redis, mariadb, databaseUrl: url, storage, site, env,
    async close() {
      await storage.close();
      await site.close();
      await Promise.all([redis.remove(), mariadb.remove()]);
    },
  };
}

export interface FaultAccount {
  accountId: string;
  /** The key the load runs with, and its id. */
  key: string;
  keyId: string;
  /** Another key of the account, for the test's own requests (setting up, reading the figures), so that the load key's figures are the load's alone. */
  ownKey: string;
}

/** An account on the unlimited plan with two keys, its searches' corpus indexed and the fixed cache entry stored. */
export async function faultAccount(service: ServiceProcess): Promise<FaultAccount> {
  const accountId = await createAccount(service.url, 'unlimited');
  const own = await createKey(service.url, { account_id: accountId, name: 'the test\'s own' });
  const load = await createKey(service.url, { account_id: accountId, name: 'load' });
  const indexed = await call(service.url, '/v1/index/documents', { key: own.key, body: { documents: corpus() } });
  expect(indexed.status, JSON.stringify(indexed.json)).to.be.oneOf([200, 202]);
  await until(async () => (await call(service.url, '/v1/search', { key: own.key, body: { query: TOPIC, options: { enable_cache: false } } })).status === 200, 30_000);
  const stored = await call(service.url, '/v1/cache/store', { key: own.key, body: { query: STORED_QUERY, content: { fixed: true }, ttl: 86_400 } });
  expect(stored.status, JSON.stringify(stored.json)).to.equal(200);
  return { accountId, key: load.key, keyId: load.id, ownKey: own.key };
}

