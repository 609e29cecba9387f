/**
 * GET /v1/auth/keys/{id}/usage: a key's requests today and this month, and its account's this
 * month, against the limits the key works under now (its plan's, narrowed by its own).
 */
import { keyLimits } from '../auth/authenticator.js';
import type { KeyService } from '../auth/key-service.js';
import type { Mode } from '../mode.js';
import type { Principal } from '../auth/principal.js';
import type { KeyUsage, UsageMeter } from './usage-meter.js';

export interface KeyUsageReport extends KeyUsage {
  key_id: string;
  mode: Mode;
  rate_limit: number;
  last_used_at: string | null;
}

export class KeyUsageService {
  constructor(
    private readonly keys: KeyService,
    private readonly meter: UsageMeter,
  ) {}

  /** The usage of a key within `actor`'s reach (NOT_FOUND otherwise, as KeyService.getKey). */
  async report(actor: Principal, id: string): Promise<KeyUsageReport> {
    const key = await this.keys.getKey(actor, id);
    const plan = this.keys.plans.get((await this.keys.getAccount(key.accountId)).plan);
    const limits = keyLimits(key, plan);
    const usage = await this.meter.keyUsage({ id: key.id, accountId: key.accountId, mode: key.mode, ...limits });
    return {
      key_id: key.id,
      mode: key.mode,
      ...usage,
      rate_limit: limits.rateLimitPerMinute,
      last_used_at: key.lastUsedAt?.toISOString() ?? null,
    };
  }
}
