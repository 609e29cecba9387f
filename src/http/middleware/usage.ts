import type { Middleware } from 'koa';
import type { Clock } from '../../clock.js';
import { METERED_SCOPES } from '../../auth/principal.js';
import type { UsageMeter } from '../../usage/usage-meter.js';
import type { UsageRecorder } from '../../usage/usage-recorder.js';
import { ApiError } from '../errors.js';
import type { AppState } from '../context.js';

/**
 * Marks the key as used and, on metered endpoints, counts the request against the key's daily
 * limit and its account's monthly quota (429 when either is used up). A request is counted when
 * it is admitted, whatever its outcome, so the count can be enforced exactly.
 */
export function usage(meter: UsageMeter, recorder: UsageRecorder, clock: Clock): Middleware<AppState> {
  return async (ctx, next) => {
    const principal = ctx.state.principal;
    if (principal?.kind === 'key') {
      recorder.used(principal.id, clock.now());
      if (METERED_SCOPES.has(ctx.state.route?.scope ?? '')) {
        try {
          await meter.admit(principal);
        } catch (error) {
          if (error instanceof ApiError) throw error;
          throw new ApiError('SERVICE_UNAVAILABLE', { estimated_recovery: 'when Redis and the database are reachable again', status_page: '/v1/health' }, 'Usage metering is unavailable.', { cause: error });
        }
      }
    }
    await next();
  };
}
