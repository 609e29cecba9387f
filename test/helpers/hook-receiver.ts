import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  /** The body exactly as sent: signatures are computed over it. */
  raw: string;
  json: any;
}

export interface HookReceiver {
  url: string;
  received: Received[];
  /** Received bodies whose `field` equals `value`. */
  where(field: string, value: unknown): Received[];
  close(): Promise<void>;
}

/**
 * A local webhook receiver (for webhook and Slack-format notifications): keeps every request
 * with its raw body and headers, and answers with the status `reply` picks (200 by default).
 */
export async function startHookReceiver(reply: (request: Received, index: number) => number = () => 200): Promise<HookReceiver> {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = JSON.parse(raw);
      } catch {
        json = undefined;
      }
      const request: Received = { path: req.url ?? '/', headers: req.headers, raw, json };
      received.push(request);
      const status = reply(request, received.length - 1);
      res.writeHead(status, { 'content-type': 'text/plain' });
      res.end(status < 300 ? 'ok' : 'failed');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    where: (field, value) => received.filter((r) => r.json?.[field] === value),
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
