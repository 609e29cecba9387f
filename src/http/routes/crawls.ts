import { randomUUID } from 'node:crypto';
import { validateBody } from '../../schema/request-validator.js';
import { respond } from '../context.js';
import type { CrawlRequest } from '../../crawl/crawl-options.js';
import { crawlJobId, enqueueCrawl } from '../../crawl/crawl-jobs.js';
import { cancelCrawl, insertCrawlWithin } from '../../crawl/crawl.repository.js';
import { ApiError } from '../../errors/catalogue.js';
import { describeCrawl, findOwnCrawl } from '../../crawl/crawl-view.js';
import type { Route } from './route.js';

export const postCrawl: Route = {
  operationId: 'startCrawl',
  method: 'POST',
  path: '/v1/crawl',
  summary: "Start a crawl from seed URLs: pages fetched politely (robots.txt, Crawl-delay), cleaned and indexed into the caller's mode",
  tag: 'Index',
  scope: 'index',
  body: 'crawl-create.request',
  response: 'crawl-job.response',
  async handler(ctx, deps) {
    const request = validateBody<CrawlRequest>('crawl-create.request', ctx.request.body);
    const principal = ctx.state.principal!;
    const id = `crawl_${randomUUID()}`;
    const db = deps.storage.db;
    // The row first: should the process die before the job is queued, the reconciler queues it.
    const stored = await insertCrawlWithin(db, {
      id,
      accountId: principal.accountId,
      principalId: principal.id,
      mode: principal.mode,
      requestId: ctx.state.requestId,
      options: JSON.stringify(request),
      maxPages: request.max_pages,
      createdAt: new Date(),
    }, deps.config.crawlMaxUnfinished);
    if (!stored.inserted) throw new ApiError('TOO_MANY_CRAWLS', { limit: deps.config.crawlMaxUnfinished, unfinished: stored.unfinished });
    await enqueueCrawl(deps.queues.crawl, {
      request_id: ctx.state.requestId, principal_id: principal.id, mode: principal.mode, input: { crawl_id: id, epoch: 0 },
    });
    const crawl = await findOwnCrawl(db, id, principal);
    respond(ctx, await describeCrawl(db, crawl));
    ctx.status = 202;
  },
};

export const getCrawl: Route = {
  operationId: 'getCrawl',
  method: 'GET',
  path: '/v1/crawl/:id',
  summary: "State, page counts and failures of a crawl (the caller's account and mode only)",
  tag: 'Index',
  scope: 'index',
  response: 'crawl-job.response',
  async handler(ctx, deps) {
    const crawl = await findOwnCrawl(deps.storage.db, ctx.params.id!, ctx.state.principal!);
    respond(ctx, await describeCrawl(deps.storage.db, crawl));
  },
};

export const deleteCrawl: Route = {
  operationId: 'cancelCrawl',
  method: 'DELETE',
  path: '/v1/crawl/:id',
  summary: 'Cancel a crawl: no further page is fetched; what was indexed stays. A finished crawl is left as it is',
  tag: 'Index',
  scope: 'index',
  response: 'crawl-job.response',
  async handler(ctx, deps) {
    const db = deps.storage.db;
    const crawl = await findOwnCrawl(db, ctx.params.id!, ctx.state.principal!);
    await cancelCrawl(db, crawl.id);
    // A driver job still waiting would only find the crawl cancelled; removing it saves the turn.
    await deps.queues.crawl.remove(crawlJobId(crawl.id, crawl.lease_epoch)).catch(() => undefined);
    respond(ctx, await describeCrawl(db, (await findOwnCrawl(db, crawl.id, ctx.state.principal!))));
  },
};
