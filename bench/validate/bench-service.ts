import { Pool } from 'undici';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log/logger.js';
import { startService } from '../../src/service.js';
import { removeKeys } from '../../test/helpers/redis-keys.js';
import { testEnv } from '../../test/helpers/service.js';
import { unlimitedPlan } from '../unlimited-plan.js';

export interface ValidateBenchService {
  /** POSTs JSON with `key`; a 200 or a 422 (a claim the service could not judge) is an answer, anything else throws. */
  post(path: string, body: unknown, key: string): Promise<any>;
  close(): Promise<void>;
}

/**
 * The whole service (API, workers, a 2-thread pool) on `databaseUrl` with limits out of the way,
 * and a keep-alive client for `concurrency` requests at once: what both validation benches run on.
 */
export async function startValidateBench(databaseUrl: string, concurrency: number): Promise<ValidateBenchService> {
  const plan = unlimitedPlan();
  const config = loadConfig(testEnv({ DATABASE_URL: databaseUrl, ...plan.env, POOL_SIZE: '2', WORKER_CONCURRENCY: '8', KEY_CACHE_TTL_S: '3600' }));
  const service = await startService(config, 'all', createLogger('silent', 'all'));
  const client = new Pool(service.url, { connections: concurrency + 2 });
  return {
    async post(path, body, key) {
      const response = await client.request({ method: 'POST', path, body: JSON.stringify(body), headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' } });
      const json = (await response.body.json()) as any;
      if (response.statusCode !== 200 && response.statusCode !== 422) throw new Error(`POST ${path}: ${response.statusCode} ${JSON.stringify(json).slice(0, 300)}`);
      return json;
    },
    async close() {
      await client.close();
      await service.close();
      plan.remove();
      await removeKeys(config.redisUrl, config.queuePrefix);
    },
  };
}
