/**
 * What the compatibility tests share: a local site of a few articles, the whole service in this
 * process, the articles loaded into its index under their local URLs (so that a search finds
 * them and their pages can be read live), and keys with and without the scopes the endpoints
 * need. Each run's articles carry words of their own, so the runs' searches never meet.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { startPageServer, html, type PageServer } from './page-server.js';
import { call, startTestService, type TestService } from './service.js';
import { createKey } from './accounts.js';

export interface Article {
  path: string;
  title: string;
  paragraphs: string[];
}

export interface CompatSite {
  service: TestService;
  site: PageServer;
  /** A word only this run's articles contain, for queries that must find them and nothing else. */
  marker: string;
  articles: Article[];
  url(path: string): string;
  /** Scopes search, extract and index. */
  key: string;
  /** Scope monitor only: refused by every compatibility endpoint. */
  monitorKey: string;
  close(): Promise<void>;
}

export function articlePage(article: Article, extra = ''): string {
  return `<!doctype html><html lang="en"><head><title>${article.title}</title><meta name="description" content="${article.title}."></head><body>
<nav><a href="/">Home</a> <a href="/tea">Tea</a> <a href="/coffee">Coffee</a></nav>
<article><h1>${article.title}</h1>${article.paragraphs.map((p) => `<p>${p}</p>`).join('\n')}${extra}</article>
<footer>Copyright 2026 Example Ltd.</footer></body></html>`;
}

export async function startCompatSite(extraRoutes: Parameters<typeof startPageServer>[0] = {}, env: Record<string, string> = {}): Promise<CompatSite> {
  const marker = `zq${randomUUID().replace(/-/g, '').slice(0, 10)}`;
  const articles: Article[] = [
    {
      path: '/tea',
      title: 'Brewing green tea',
      paragraphs: [
        `Green tea is brewed with water at 70 to 80 degrees Celsius for two to three minutes; the ${marker} method keeps it sweet.`,
        'Boiling water scorches the leaves and makes the tea bitter, so let the kettle rest for a few minutes first.',
        'A second infusion of the same leaves is often better than the first, and takes a little longer to steep.',
      ],
    },
    {
      path: '/coffee',
      title: 'Roasting coffee at home',
      paragraphs: [
        `Coffee beans roast in twelve to fifteen minutes, and the ${marker} notes follow the first crack closely.`,
        'A light roast keeps the acidity of the bean; a dark roast brings out bitter chocolate flavours instead.',
        'Let the beans rest for a day after roasting so that the carbon dioxide they hold can escape.',
      ],
    },
  ];
  const routes: Parameters<typeof startPageServer>[0] = {
    // The tea article links to the coffee one from its text, so that its main content has a link.
    ...Object.fromEntries(articles.map((a) => [a.path, html(articlePage(a, a.path === '/tea' ? '<p>For a stronger morning drink, read about <a href="/coffee">roasting coffee at home</a> instead, which takes longer but rewards the patience it asks for.</p>' : ''))])),
    ...extraRoutes,
  };
  const site = await startPageServer(routes);
  const service = await startTestService(env);
  const url = (path: string) => `${site.url}${path}`;
  const indexed = await call(service.url, '/v1/index/documents', {
    body: { documents: articles.map((a) => ({ url: url(a.path), title: a.title, content: a.paragraphs.join('\n\n') })) },
  });
  expect(indexed.status, JSON.stringify(indexed.json)).to.equal(200);
  expect(indexed.json.data.state, JSON.stringify(indexed.json)).to.equal('completed');
  const key = (await createKey(service.url, { name: `compat ${randomUUID()}`, type: 'scoped', permissions: ['search', 'extract', 'index'] })).key as string;
  const monitorKey = (await createKey(service.url, { name: `compat monitor ${randomUUID()}`, type: 'scoped', permissions: ['monitor'] })).key as string;
  return {
    service, site, marker, articles, url, key, monitorKey,
    close: async () => {
      await call(service.url, '/v1/index/documents', { method: 'DELETE', body: { urls: articles.map((a) => url(a.path)) } });
      await service.close();
      await site.close();
    },
  };
}

/** Waits for the audit log to hold the entries of `query` (they are written within a second or two). */
export async function auditEntries(service: TestService, query: string, count: number): Promise<any[]> {
  let last: any;
  for (let i = 0; i < 50; i++) {
    last = await call(service.url, `/v1/audit?${query}`);
    if (last.status === 200 && last.json.data.pagination.total >= count) return last.json.data.entries;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`audit ${query}: expected ${count} entries, last answer ${JSON.stringify(last?.json).slice(0, 300)}`);
}
