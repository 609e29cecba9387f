import type { Middleware } from 'koa';
import type { Clock } from '../../clock.js';
import type { UsageMeter, Admission } from '../../usage/usage-meter.js';
import type { UsageRecorder } from '../../usage/usage-recorder.js';
import type { TenantMetrics } from '../../metrics/tenant-metrics.js';
import { ApiError } from '../../errors/catalogue.js';
import type { AppState } from '../context.js';
import { applyWindow, countedWithQuotas } from './rate-limit.js';

/**
 * Marks the key as used and, on metered endpoints, counts the request in its rate-limit window
 * (left to this stage by `rateLimit`) and against the key's daily limit and its account's
 * monthly quota, in one Redis script: 429 when the window or a quota is used up. A request is
 * counted when it is admitted, whatever its outcome, so the count can be enforced exactly. The
 * account's count this month goes to the tenant metrics (sev_tenant_quota_used_ratio).
 */
export function usage(meter: UsageMeter, recorder: UsageRecorder, clock: Clock, tenants: TenantMetrics): Middleware<AppState> {
  return async (ctx, next) => {
    const principal = ctx.state.principal;
    // A member's console session is metered as a key is, under the member's id; only keys have a last use.
    if (principal && principal.kind !== 'master') {
      if (principal.kind === 'key') recorder.used(principal.id, clock.now());
      if (countedWithQuotas(ctx.state.route, principal)) {
        let admission: Admission;
        try {
          admission = await meter.admit(principal);
        } catch (error) {
          if (error instanceof ApiError) throw error;
          throw new ApiError('SERVICE_UNAVAILABLE', { estimated_recovery: 'when Redis and the database are reachable again', status_page: '/v1/health' }, 'Rate limiting and usage metering are unavailable.', { cause: error });
        }
        applyWindow(ctx, principal.rateLimitPerMinute, admission.window);
        if (admission.month && principal.accountId !== null) tenants.quota({ account: principal.accountId, mode: principal.mode, ...admission.month });
        if (admission.refusal) throw admission.refusal;
      }
    }
    await next();
  };
}
