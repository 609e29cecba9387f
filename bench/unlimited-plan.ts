import fs from 'node:fs';
import { writePlansFile } from '../test/helpers/accounts.js';

/**
 * A PLANS_FILE with one plan, `bench`, whose limits never refuse a benchmark's requests (10
 * million a minute, no daily or monthly limit), so every check runs without getting in the way.
 */
export function unlimitedPlansFile(): { file: string; remove(): void } {
  const file = writePlansFile([{
    name: 'bench', rate_limit_per_minute: 10_000_000, monthly_limit: null, sandbox_monthly_limit: null,
    daily_limit_per_key: null, features: ['scoped_keys', 'service_accounts'],
  }]);
  return { file, remove: () => fs.rmSync(file, { force: true }) };
}
