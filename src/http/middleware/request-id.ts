import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Logger } from '../../log/logger.js';
import type { AppState } from '../context.js';

// A caller may bring its own id (to join its logs with ours) if it looks like an id, not a payload.
const CLIENT_ID = /^[A-Za-z0-9._:-]{8,64}$/;

export function requestId(logger: Logger): Middleware<AppState> {
  return async (ctx, next) => {
    const incoming = ctx.get('X-Request-Id');
    const id = CLIENT_ID.test(incoming) ? incoming : `req_${randomUUID().replace(/-/g, '')}`;
    ctx.state.requestId = id;
    ctx.state.startedAt = performance.now();
    ctx.state.log = logger.child({ request_id: id });
    ctx.set('X-Request-Id', id);
    await next();
  };
}
