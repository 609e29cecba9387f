import { createServer, type IncomingMessage, type OutgoingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type PageHandler = (req: IncomingMessage, res: ServerResponse) => void;

export interface PageServer {
  url: string;
  close(): Promise<void>;
}

/** A local web server the test controls: the only kind of site the service fetches in tests. */
export async function startPageServer(routes: Record<string, PageHandler>): Promise<PageServer> {
  const server: Server = createServer((req, res) => {
    const handler = routes[(req.url ?? '/').split('?')[0]!];
    if (handler) handler(req, res);
    else {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function html(body: string, status = 200, type = 'text/html; charset=utf-8'): PageHandler {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': type });
    res.end(body);
  };
}

/** Sends the body as it is with exactly these headers (bytes in any encoding, or no Content-Type at all). */
export function raw(body: Buffer | string, headers: OutgoingHttpHeaders = {}, status = 200): PageHandler {
  return (_req, res) => {
    res.writeHead(status, headers);
    res.end(body);
  };
}

export const ARTICLE = `<!doctype html>
<html lang="en"><head><title>The Pipeline Article</title>
<meta name="author" content="Ada Lovelace"><meta property="article:published_time" content="2026-03-04T05:06:07Z"></head>
<body><nav><a href="/home">Home</a> <a href="/about">About</a></nav>
<article><h1>How the pipeline works</h1>
<p>Every request travels through Koa, AJV, BullMQ, a worker, undici and a Piscina thread.</p>
<p>The cleaned result is stored in MySQL and returned with its <a href="/request-id">request id</a>.</p>
<figure><img src="/diagram.png" alt="Diagram"></figure>
</article><footer>Copyright footer text</footer></body></html>`;
