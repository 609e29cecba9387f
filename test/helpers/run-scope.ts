/**
 * Loaded by mocha before any test file (.mocharc.json `require`): everything one `npm test`
 * run creates on the shared MariaDB and Redis carries the run's name and is removed when the
 * run ends, so two runs on one server never meet and the servers do not fill up.
 *  - DATABASE_URL points at a database of the run's own (`sev_t_<run>`), made before the first
 *    test; freshDatabase(name) makes `sev_t_<run>_<name>`. Processes the tests spawn inherit
 *    DATABASE_URL through the environment.
 *  - Redis key prefixes (queues, rate limits, the result cache) start with `test-<run>-`.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createDatabase, databaseUrl, dropDatabase, dropDatabases } from './database.js';
import { removeKeys } from './redis-keys.js';

const RUN = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
const SERVER_URL = process.env.DATABASE_URL ?? 'mysql://root@127.0.0.1:3306/test';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const DATABASE = `sev_t_${RUN}`;
const KEY_PREFIX = `test-${RUN}-`;

/** An empty database of this run, for a suite whose answers depend on all the index holds; returns its URL. */
export function freshDatabase(name: string): Promise<string> {
  return createDatabase(SERVER_URL, `${DATABASE}_${name}`);
}

/** The URL of a database of this run that nobody has made (yet); dropped with the run if something makes it. */
export function runDatabaseUrl(name: string): string {
  return databaseUrl(SERVER_URL, `${DATABASE}_${name}`);
}

/** A name of this run for server-wide things other than databases (MySQL users); remove them yourself. */
export function runName(name: string): string {
  return `${DATABASE}_${name}`;
}

/** Removes a database freshDatabase made, if it is there. */
export function dropFreshDatabase(name: string): Promise<void> {
  return dropDatabase(SERVER_URL, `${DATABASE}_${name}`);
}

/** A Redis key prefix of this run, unique to its caller. */
export function runPrefix(): string {
  return `${KEY_PREFIX}${randomUUID()}`;
}

process.env.DATABASE_URL = databaseUrl(SERVER_URL, DATABASE);
process.env.TEST_KEY_PREFIX = KEY_PREFIX;

export const mochaHooks = {
  async beforeAll(): Promise<void> {
    await createDatabase(SERVER_URL, DATABASE);
  },
  async afterAll(): Promise<void> {
    await dropDatabases(SERVER_URL, DATABASE);
    await removeKeys(REDIS_URL, KEY_PREFIX);
  },
};
