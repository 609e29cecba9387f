import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { Plan } from '../../src/auth/plans.js';
import { call } from './service.js';

/** Plans small enough to exhaust in a test: free has a 5-request month, 3 in the sandbox. */
export const TEST_PLANS: Plan[] = [
  { name: 'free', rate_limit_per_minute: 1000, monthly_limit: 5, sandbox_monthly_limit: 3, daily_limit_per_key: null, features: [] },
  { name: 'pro', rate_limit_per_minute: 1000, monthly_limit: null, sandbox_monthly_limit: null, daily_limit_per_key: 100, features: ['scoped_keys'] },
  { name: 'enterprise', rate_limit_per_minute: 1000, monthly_limit: null, sandbox_monthly_limit: null, daily_limit_per_key: null, features: ['scoped_keys', 'service_accounts'] },
];

export function writePlansFile(plans: Plan[] = TEST_PLANS): string {
  const file = path.join(os.tmpdir(), `sev-plans-${randomUUID()}.json`);
  writeFileSync(file, JSON.stringify(plans));
  return file;
}

/** A new account on `plan`, created with the master key. */
export async function createAccount(base: string, plan: string): Promise<string> {
  const response = await call(base, '/v1/accounts', { body: { name: `test ${plan}`, plan } });
  expect(response.status, JSON.stringify(response.json)).to.equal(200);
  return response.json.data.id as string;
}

/** A new key (record with its secret `key`), created with the master key unless `as` is given. */
export async function createKey(base: string, body: Record<string, unknown>, as?: string): Promise<any> {
  const response = await call(base, '/v1/auth/keys', { body: { name: 'test key', ...body }, ...(as ? { key: as } : {}) });
  expect(response.status, JSON.stringify(response.json)).to.equal(200);
  return response.json.data;
}
