import type { Middleware } from 'koa';
import { ApiError } from '../../errors/catalogue.js';
import type { AppState } from '../context.js';
import { resolveClientAddress, type ClientAddress } from '../client-address.js';
import type { Range } from '../../net/ip-ranges.js';
import { socketOrigin } from '../socket-origin.js';

/**
 * Establishes the client's address and scheme (trusting forwarded headers only from configured
 * proxies) and the origin it called (from Host), and, when HTTPS is required, refuses plain-HTTP
 * requests before anything is read. Probes and the Prometheus scrape stay reachable over plain
 * HTTP: orchestrators and Prometheus call them from inside the network. An HTTP/1.1 request
 * without Host (which RFC 9112 requires) is refused here, in the envelope, rather than by Node.
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
    if (ctx.req.headers.host === undefined && ctx.req.httpVersion === '1.1') {
      ctx.state.origin = socketOrigin(socket);
      throw new ApiError('MALFORMED_REQUEST', { reason: 'an HTTP/1.1 request must carry a Host header' });
    }
    ctx.state.origin = `${client.protocol}://${ctx.host}`;
    if (requireHttps && client.protocol !== 'https' && !PROBES.has(ctx.path)) {
      throw new ApiError('HTTPS_REQUIRED', { scheme: client.protocol });
    }
    await next();
  };
}
