import client from 'prom-client';

/**
 * Metrics per tenant: requests, errors and latency by account (and key), and how much of its
 * monthly quota an account has used. Recorded by the API for requests to authenticated routes
 * (probes, /metrics and the public documents are not a tenant's traffic).
 *
 * Cardinality: `sev_tenant_requests_total` has up to two series per key (outcome success and
 * error) and `sev_tenant_request_seconds_total` one; the other metrics are per account and mode.
 * `TENANT_METRICS=account` leaves the key label empty (one series per account instead of per
 * key), `off` records nothing.
 */
export type TenantDetail = 'key' | 'account' | 'off';

/** The label values of a request's caller, as the edge names them. */
export interface TenantLabels {
  /** The account id; `master` for the master key, `anonymous` when no key was accepted. */
  account: string;
  /** The key id; `master` or `anonymous` likewise. */
  key: string;
  /** `live` or `test`; `none` when no key was accepted. */
  mode: string;
}

export interface TenantRequest extends TenantLabels {
  status: number;
  /** The error code of an error response (the catalogue's), if it has one. */
  code: string | undefined;
  seconds: number;
}

/** An account's use of its monthly quota after a request was admitted or refused by it. */
export interface TenantQuota {
  account: string;
  mode: string;
  used: number;
  /** The monthly limit; null for none (the count is still exported, the ratio is not). */
  limit: number | null;
  /** When the month ends: past it the figures are dropped rather than shown for the wrong month. */
  resetsAt: Date;
}

export interface TenantMetrics {
  request(request: TenantRequest): void;
  quota(quota: TenantQuota): void;
}

const NOTHING: TenantMetrics = { request() {}, quota() {} };

interface Bound {
  success: { inc(): void };
  error: { inc(): void };
  seconds: { inc(value: number): void };
  duration: { observe(value: number): void };
}

export function createTenantMetrics(registry: client.Registry, detail: TenantDetail, buckets: number[]): TenantMetrics {
  if (detail === 'off') return NOTHING;
  const requests = new client.Counter({
    name: 'sev_tenant_requests_total',
    help: 'Requests to authenticated routes by account, key, mode and outcome (success: status below 400, else error); account and key are "master" for the master key and "anonymous" when no key was accepted',
    labelNames: ['account', 'key', 'mode', 'outcome'] as const,
    registers: [registry],
  });
  const seconds = new client.Counter({
    name: 'sev_tenant_request_seconds_total',
    help: 'Time spent answering the requests of sev_tenant_requests_total, by account, key and mode (divided by their rate: mean latency per key)',
    labelNames: ['account', 'key', 'mode'] as const,
    registers: [registry],
  });
  const duration = new client.Histogram({
    name: 'sev_tenant_request_duration_seconds',
    help: 'Duration of the requests of sev_tenant_requests_total, by account and mode',
    labelNames: ['account', 'mode'] as const,
    buckets,
    registers: [registry],
  });
  const errors = new client.Counter({
    name: 'sev_tenant_errors_total',
    help: 'Error responses to authenticated routes by account, mode and error code',
    labelNames: ['account', 'mode', 'code'] as const,
    registers: [registry],
  });

  // The latest figures each account's requests brought this process, by account and mode.
  const quotas = new Map<string, TenantQuota>();
  const current = (): TenantQuota[] => {
    const now = Date.now();
    for (const [id, quota] of quotas) if (quota.resetsAt.getTime() <= now) quotas.delete(id);
    return [...quotas.values()];
  };
  new client.Gauge({
    name: 'sev_tenant_monthly_requests',
    help: 'Requests counted against the account\'s monthly quota this month, by account and mode, as last seen by this process (take the max over processes)',
    labelNames: ['account', 'mode'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const { account, mode, used } of current()) this.set({ account, mode }, used);
    },
  });
  new client.Gauge({
    name: 'sev_tenant_quota_used_ratio',
    help: 'Share of the account\'s monthly quota used (0..1), by account and mode, as last seen by this process (take the max over processes); absent for accounts without a monthly limit',
    labelNames: ['account', 'mode'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const { account, mode, used, limit } of current()) {
        if (limit !== null) this.set({ account, mode }, limit > 0 ? Math.min(1, used / limit) : 1);
      }
    },
  });

  // Children bound once per account, key and mode: the labels of each request are not hashed four times.
  const bound = new Map<string, Bound>();
  const series = (account: string, key: string, mode: string): Bound => {
    const id = `${account}\n${key}\n${mode}`;
    let children = bound.get(id);
    if (!children) {
      children = {
        success: requests.labels({ account, key, mode, outcome: 'success' }),
        error: requests.labels({ account, key, mode, outcome: 'error' }),
        seconds: seconds.labels({ account, key, mode }),
        duration: duration.labels({ account, mode }),
      };
      bound.set(id, children);
    }
    return children;
  };

  return {
    request({ account, key, mode, status, code, seconds: elapsed }) {
      const children = series(account, detail === 'key' ? key : '', mode);
      (status >= 400 ? children.error : children.success).inc();
      children.seconds.inc(elapsed);
      children.duration.observe(elapsed);
      if (status >= 400) errors.inc({ account, mode, code: code ?? `HTTP_${status}` });
    },
    quota(quota) {
      quotas.set(`${quota.account}\n${quota.mode}`, quota);
    },
  };
}
