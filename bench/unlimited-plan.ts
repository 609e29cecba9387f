import fs from 'node:fs';
import { writePlansFile } from '../test/helpers/accounts.js';

/**
 * Settings under which limits never refuse a benchmark's requests yet every check still runs:
 * a PLANS_FILE whose one plan, `bench`, is the default (10 million requests a minute, no daily
 * or monthly limit), and a master-key limit of a million a minute. `remove` deletes the file.
 */
export function unlimitedPlan(): { env: Record<string, string>; remove(): void } {
  const file = writePlansFile([{
    name: 'bench', rate_limit_per_minute: 10_000_000, monthly_limit: null, sandbox_monthly_limit: null,
    daily_limit_per_key: null, features: ['scoped_keys', 'service_accounts'],
  }]);
  return {
    env: { PLANS_FILE: file, DEFAULT_PLAN: 'bench', RATE_LIMIT_PER_MINUTE: '1000000' },
    remove: () => fs.rmSync(file, { force: true }),
  };
}
