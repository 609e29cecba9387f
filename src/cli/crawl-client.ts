/**
 * The client side of npm run crawl: POST /v1/crawl, GET and DELETE /v1/crawl/{id} through the
 * command-line tools' API client.
 */
import { ApiClient } from './api-client.js';
import type { CrawlView } from '../crawl/crawl-view.js';

export class CrawlClient {
  private readonly api: ApiClient;

  constructor(baseUrl: string, apiKey: string) {
    this.api = new ApiClient(baseUrl, apiKey);
  }

  start(body: Record<string, unknown>): Promise<CrawlView> {
    return this.api.request('POST', '/v1/crawl', body);
  }

  get(id: string): Promise<CrawlView> {
    return this.api.request('GET', `/v1/crawl/${encodeURIComponent(id)}`);
  }

  cancel(id: string): Promise<CrawlView> {
    return this.api.request('DELETE', `/v1/crawl/${encodeURIComponent(id)}`);
  }
}
