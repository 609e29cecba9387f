/**
 * The client side of npm run crawl: POST /v1/crawl, GET and DELETE /v1/crawl/{id} through the
 * typed client.
 */
import type { Schemas, SevClient } from '../../clients/typescript/src/index.js';
import { serviceClient } from './service-client.js';

export type CrawlView = Schemas['crawl-job.response'];
export type CrawlRequest = Schemas['crawl-create.request'];

export class CrawlClient {
  private readonly api: SevClient;

  constructor(baseUrl: string, apiKey: string) {
    this.api = serviceClient(baseUrl, apiKey);
  }

  start(body: CrawlRequest): Promise<CrawlView> {
    return this.api.startCrawl(body);
  }

  get(id: string): Promise<CrawlView> {
    return this.api.crawl(id);
  }

  cancel(id: string): Promise<CrawlView> {
    return this.api.cancelCrawl(id);
  }
}
