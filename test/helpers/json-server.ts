import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface JsonRequest {
  method: string;
  url: URL;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body, or undefined when there was none. */
  body: any;
}

export interface JsonReply {
  status?: number;
  body: unknown;
  /** Answer this much later (the connection closing first cancels it). */
  delayMs?: number;
}

export interface JsonServer {
  url: string;
  requests: JsonRequest[];
  close(): Promise<void>;
}

/**
 * A local stand-in for a third-party JSON API (SearXNG, a chat-completions endpoint): the test
 * decides each answer, in that service's documented wire format.
 */
export async function startJsonServer(answer: (request: JsonRequest) => JsonReply): Promise<JsonServer> {
  const requests: JsonRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const request = { method: req.method ?? 'GET', url: new URL(req.url ?? '/', 'http://127.0.0.1'), headers: req.headers, body: text ? JSON.parse(text) : undefined };
      requests.push(request);
      const reply = answer(request);
      const timer = setTimeout(() => {
        res.writeHead(reply.status ?? 200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(reply.body));
      }, reply.delayMs ?? 0);
      res.on('close', () => clearTimeout(timer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
