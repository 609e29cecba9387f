import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { RequestListener } from 'node:http';
import type { Config } from '../config.js';

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
  const server: Server = config.tls
    ? createHttpsServer({ cert: readFileSync(config.tls.certFile), key: readFileSync(config.tls.keyFile) }, handler)
    : createHttpServer(handler);
  // Slow clients must not hold sockets forever (slowloris); generous enough for 10 MB uploads.
  server.requestTimeout = 120_000;
  server.headersTimeout = 20_000;
  server.keepAliveTimeout = 5_000;

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
