import type { Middleware } from 'koa';
import { ApiError } from '../../errors/catalogue.js';
import type { AppState } from '../context.js';
import { resolveClientAddress, type ClientAddress } from '../client-address.js';
import type { Range } from '../../net/ip-ranges.js';

/**
 * Establishes the client's address and scheme (trusting forwarded headers only from configured
 * proxies) and, when HTTPS is required, refuses plain-HTTP requests before anything is read.
 * Probes and the Prometheus scrape stay reachable over plain HTTP: orchestrators and Prometheus
 * call them from inside the network.
 */
const PROBES = new Set(['/livez', '/readyz', '/metrics']);

export function httpsGuard(requireHttps: boolean, trusted: readonly Range[]): Middleware<AppState> {
  // Without forwarded headers the answer depends on the connection alone: worked out once per
  // keep-alive connection instead of parsing its address on every request.
  const bySocket = new WeakMap<object, ClientAddress>();
  return async (ctx, next) => {
    const socket = ctx.req.socket as typeof ctx.req.socket & { encrypted?: boolean };
    const forwardedFor = ctx.get('X-Forwarded-For');
    const forwardedProto = ctx.get('X-Forwarded-Proto');
    let client = forwardedFor || forwardedProto ? undefined : bySocket.get(socket);
    if (!client) {
      client = resolveClientAddress(
        socket.remoteAddress ?? '',
        Boolean(socket.encrypted),
        { forwardedFor: forwardedFor || undefined, forwardedProto: forwardedProto || undefined },
        trusted,
      );
      if (!forwardedFor && !forwardedProto) bySocket.set(socket, client);
    }
    ctx.state.clientIp = client.ip;
    ctx.state.origin = `${client.protocol}://${ctx.host}`;
    if (requireHttps && client.protocol !== 'https' && !PROBES.has(ctx.path)) {
      throw new ApiError('HTTPS_REQUIRED', { scheme: client.protocol });
    }
    await next();
  };
}
