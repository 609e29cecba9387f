/**
 * The article-benchmark pages served by a process of their own, for bench/extract/api-external.ts:
 * GET /<anything>/<id> answers page <id>, so a load generator can ask for as many distinct URLs
 * as it likes. Listens on 127.0.0.1 at a free port, which it prints as its first line.
 *
 *   node dist/bench/extract/page-server.js
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadArticleBenchmark } from './data.js';

const pages = new Map(loadArticleBenchmark().map((page) => [page.id, Buffer.from(page.html)]));
const server = createServer((req, res) => {
  const id = (req.url ?? '/').split('?')[0]!.split('/').pop()!;
  const body = pages.get(id);
  if (!body) {
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found');
    return;
  }
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': body.length });
  res.end(body);
});
server.listen(0, '127.0.0.1', () => {
  console.log(JSON.stringify({ port: (server.address() as AddressInfo).port, ids: [...pages.keys()] }));
});
