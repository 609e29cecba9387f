import type { Redis } from 'ioredis';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { KeyService } from '../auth/key-service.js';
import { monthlyLimit } from '../auth/plans.js';
import type { Mode } from '../mode.js';
import type { Database } from '../storage/schema.js';
import { monthUsage } from './usage-meter.js';

/**
 * An account's quota month as GET /v1/usage reports it (requests used, the plan's limit), for
 * readers outside a request: the alert evaluator's usage_percentage.
 */
export class QuotaReader {
  constructor(
    private readonly keys: KeyService,
    private readonly redis: Redis,
    private readonly db: Kysely<Database>,
    private readonly prefix: string,
    private readonly clock: Clock,
  ) {}

  /** An account that no longer exists has no quota (limit null). */
  async month(accountId: string, mode: Mode): Promise<{ used: number; limit: number | null }> {
    const account = await this.keys.findAccount(accountId);
    if (!account) return { used: 0, limit: null };
    const used = await monthUsage(this.redis, this.db, this.prefix, accountId, mode, this.clock.now());
    return { used, limit: monthlyLimit(this.keys.plans.get(account.plan), mode) };
  }
}
