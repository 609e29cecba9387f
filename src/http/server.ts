import { createServer as createHttpServer, maxHeaderSize, STATUS_CODES, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { readFileSync } from 'node:fs';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { RequestListener } from 'node:http';
import type { Config } from '../config.js';
import { ApiError } from '../errors/catalogue.js';
import { envelope } from './middleware/error-envelope.js';
import { newRequestId } from './middleware/request-id.js';
import { socketOrigin } from './socket-origin.js';

// Slow clients must not hold sockets forever (slowloris); generous enough for 10 MB uploads.
const REQUEST_TIMEOUT_MS = 120_000;
const HEADERS_TIMEOUT_MS = 20_000;

/** How long a refused connection may still send before it is closed (see answerClientError). */
const LINGER_MS = 1000;

export interface HttpServer {
  readonly server: Server;
  readonly url: string;
  /** Requests being answered right now. */
  inFlight(): number;
  /** Stops accepting connections and resolves when in-flight requests are answered or `deadline` passes. */
  drain(deadline: number): Promise<boolean>;
  closeAll(): void;
}

/** Serves plain HTTP, or HTTPS when TLS files are configured. */
export async function listen(config: Config, handler: RequestListener, port = config.port): Promise<HttpServer> {
  // Node would answer an HTTP/1.1 request without Host with a bare 400 itself; the API answers it
  // in the envelope (https-guard.ts).
  const options = { requireHostHeader: false };
  const server: Server = config.tls
    ? createHttpsServer({ ...options, cert: readFileSync(config.tls.certFile), key: readFileSync(config.tls.keyFile) }, handler)
    : createHttpServer(options, handler);
  server.requestTimeout = REQUEST_TIMEOUT_MS;
  server.headersTimeout = HEADERS_TIMEOUT_MS;
  server.keepAliveTimeout = 5_000;
  server.on('clientError', answerClientError);

  let inFlight = 0;
  server.on('request', (_req, res) => {
    inFlight++;
    res.once('close', () => inFlight--);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `${config.tls ? 'https' : 'http'}://${host}:${address.port}`;

  return {
    server,
    url,
    inFlight: () => inFlight,
    async drain(deadline) {
      server.close();
      while (inFlight > 0 && Date.now() < deadline) {
        // Keep-alive sockets that finish a response must not wait for their idle time-out.
        server.closeIdleConnections();
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      server.closeIdleConnections();
      return inFlight === 0;
    },
    closeAll: () => server.closeAllConnections(),
  };
}

type ParserError = Error & { code?: string; reason?: string };

/** Connections already answered: Node reports the parser's error again for every later chunk of data. */
const answered = new WeakSet<Duplex>();

/**
 * What Node's HTTP parser refuses before any handler sees it (an unknown method, a bad URL or
 * chunk, headers over its limit, a request too slow to arrive) Node would answer with a bare
 * status line. It gets the error envelope instead, written straight to the socket, while that is
 * possible: not once the client has gone, and not when a response on the same connection has
 * begun (the envelope would land in its middle; the connection is closed instead). What the
 * client still sends is read and dropped for LINGER_MS, so that closing does not reset the
 * connection before the client has read the answer.
 */
export function answerClientError(error: ParserError, socket: Duplex): void {
  if (answered.has(socket)) return;
  answered.add(socket);
  // Node's own name for the response in progress on a connection, which its default answer checks too.
  const inProgress = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || inProgress?.headersSent) {
    socket.destroy();
    return;
  }
  const refusal = parserRefusal(error);
  const requestId = newRequestId();
  const body = JSON.stringify(envelope(refusal, { requestId, origin: socketOrigin(socket as Socket), upgradeUrl: undefined }));
  socket.end([
    `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status]}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-Request-Id: ${requestId}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n'));
  socket.resume();
  const linger = setTimeout(() => socket.destroy(), LINGER_MS).unref();
  socket.once('close', () => clearTimeout(linger));
}

function parserRefusal(error: ParserError): ApiError {
  if (error.code === 'HPE_HEADER_OVERFLOW') return new ApiError('HEADERS_TOO_LARGE', { max_size_kb: maxHeaderSize / 1024 });
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return new ApiError('REQUEST_TIMEOUT', undefined,
      `The request did not arrive in time: its headers within ${HEADERS_TIMEOUT_MS / 1000} s, all of it within ${REQUEST_TIMEOUT_MS / 1000} s.`);
  }
  // llhttp's reason ("Invalid method encountered"); other errors say it in their message.
  return new ApiError('MALFORMED_REQUEST', { reason: error.reason ?? error.message });
}
