/**
 * Plans: what an account may do and how much. The list is ordered from the lowest tier to the
 * highest; "the plan a feature needs" is the first plan that has it. Operators replace the list
 * with PLANS_FILE (same shape as DEFAULT_PLANS, JSON) and pick the default account's plan with
 * DEFAULT_PLAN.
 */
import type { Mode } from '../mode.js';

export const FEATURES = ['scoped_keys', 'service_accounts'] as const;
export type Feature = (typeof FEATURES)[number];

export interface Plan {
  readonly name: string;
  /** Per-key limit over the one-minute window, unless the key sets its own lower rate_limit. */
  readonly rate_limit_per_minute: number;
  /** Live requests per calendar month (UTC) shared by the account's keys; null = unlimited. */
  readonly monthly_limit: number | null;
  /** Sandbox (test key) requests per month, counted apart from live ones; null = unlimited. */
  readonly sandbox_monthly_limit: number | null;
  /** Requests per key per day (UTC), unless the key sets its own lower daily_limit; null = unlimited. */
  readonly daily_limit_per_key: number | null;
  readonly features: readonly Feature[];
}

export const DEFAULT_PLANS: readonly Plan[] = [
  { name: 'free', rate_limit_per_minute: 60, monthly_limit: 1_000, sandbox_monthly_limit: 1_000, daily_limit_per_key: 200, features: [] },
  { name: 'pro', rate_limit_per_minute: 600, monthly_limit: 100_000, sandbox_monthly_limit: 10_000, daily_limit_per_key: 20_000, features: ['scoped_keys'] },
  { name: 'enterprise', rate_limit_per_minute: 6_000, monthly_limit: null, sandbox_monthly_limit: 100_000, daily_limit_per_key: null, features: ['scoped_keys', 'service_accounts'] },
];

export class Plans {
  private readonly byName: ReadonlyMap<string, Plan>;

  constructor(readonly list: readonly Plan[]) {
    this.byName = new Map(list.map((plan) => [plan.name, plan]));
  }

  get(name: string): Plan {
    const plan = this.byName.get(name);
    // An account whose plan was removed from PLANS_FILE gets the lowest tier, never more.
    return plan ?? this.list[0]!;
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  /** The lowest plan that includes the feature. */
  requiredFor(feature: Feature): Plan | undefined {
    return this.list.find((plan) => plan.features.includes(feature));
  }
}

const LIMIT_FIELDS = ['monthly_limit', 'sandbox_monthly_limit', 'daily_limit_per_key'] as const;

/** Reads a plan list from JSON text; throws an Error that says what is wrong with which plan. */
export function parsePlans(text: string): Plan[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`is not valid JSON (${(error as Error).message})`);
  }
  if (!Array.isArray(value) || value.length === 0) throw new Error('must hold a non-empty JSON array of plans');
  const seen = new Set<string>();
  return value.map((raw: unknown, index) => {
    const where = `plan ${index + 1}`;
    if (typeof raw !== 'object' || raw === null) throw new Error(`${where} must be an object`);
    const plan = raw as Record<string, unknown>;
    const known = new Set(['name', 'rate_limit_per_minute', ...LIMIT_FIELDS, 'features']);
    const unknown = Object.keys(plan).filter((k) => !known.has(k));
    if (unknown.length > 0) throw new Error(`${where} has unknown fields: ${unknown.join(', ')}`);
    if (typeof plan.name !== 'string' || !/^[a-z][a-z0-9_-]{0,31}$/.test(plan.name)) {
      throw new Error(`${where}: name must be a lower-case identifier`);
    }
    if (seen.has(plan.name)) throw new Error(`${where}: name "${plan.name}" is used twice`);
    seen.add(plan.name);
    if (!isPositiveInteger(plan.rate_limit_per_minute)) throw new Error(`plan ${plan.name}: rate_limit_per_minute must be a positive integer`);
    for (const field of LIMIT_FIELDS) {
      if (plan[field] !== null && !isPositiveInteger(plan[field])) throw new Error(`plan ${plan.name}: ${field} must be a positive integer or null`);
    }
    const features = plan.features ?? [];
    if (!Array.isArray(features) || !features.every((f) => (FEATURES as readonly unknown[]).includes(f))) {
      throw new Error(`plan ${plan.name}: features must list some of ${FEATURES.join(', ')}`);
    }
    return {
      name: plan.name,
      rate_limit_per_minute: plan.rate_limit_per_minute as number,
      monthly_limit: plan.monthly_limit as number | null,
      sandbox_monthly_limit: plan.sandbox_monthly_limit as number | null,
      daily_limit_per_key: plan.daily_limit_per_key as number | null,
      features: features as Feature[],
    };
  });
}

function isPositiveInteger(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) > 0;
}

/** The monthly quota of a plan in a mode (sandbox keys have their own); null: unlimited. */
export function monthlyLimit(plan: Plan, mode: Mode): number | null {
  return mode === 'test' ? plan.sandbox_monthly_limit : plan.monthly_limit;
}
