import { caller, respond } from '../context.js';
import type { CrawlRequest } from '../../crawl/crawl-options.js';
import type { Route } from './route.js';

export const postCrawl: Route<CrawlRequest> = {
  operationId: 'startCrawl',
  method: 'POST',
  path: '/v1/crawl',
  summary: "Start a crawl from seed URLs: pages fetched politely (robots.txt, Crawl-delay), cleaned and indexed into the caller's mode",
  tag: 'Index',
  scope: 'index',
  body: 'crawl-create.request',
  response: 'crawl-job.response',
  async handler(ctx, { body }, services) {
    respond(ctx, await services.crawls.start(caller(ctx), body));
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
  async handler(ctx, _input, services) {
    respond(ctx, await services.crawls.get(ctx.state.principal!, ctx.params.id!));
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
  async handler(ctx, _input, services) {
    respond(ctx, await services.crawls.cancel(ctx.state.principal!, ctx.params.id!));
  },
};
