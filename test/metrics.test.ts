import { expect } from 'chai';
import { call, startTestService, type TestService } from './helpers/service.js';

describe('GET /metrics', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService();
  });
  after(() => service.close());

  it('exposes request, queue, pool, index and process metrics in Prometheus text format', async () => {
    await call(service.url, '/v1/health');
    await call(service.url, '/v1/nowhere');
    await call(service.url, '/v1/health', { key: 'sev_live_guess' });
    await call(service.url, '/v1/health', { key: null });
    const response = await fetch(`${service.url}/metrics`);
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.match(/^text\/plain/);
    const text = await response.text();
    expect(text).to.match(/^sev_http_requests_total\{method="GET",route="\/v1\/health",status="200",role="all"\} [1-9]/m);
    expect(text).to.match(/^sev_http_requests_total\{method="GET",route="unmatched",status="404",role="all"\} 1/m);
    // Refusals by code, so an operator can tell key guessing from clients without keys.
    expect(text).to.match(/^sev_http_errors_total\{route="\/v1\/health",code="INVALID_API_KEY",role="all"\} 1/m);
    expect(text).to.match(/^sev_http_errors_total\{route="\/v1\/health",code="MISSING_API_KEY",role="all"\} 1/m);
    expect(text).to.match(/^sev_http_errors_total\{route="unmatched",code="NOT_FOUND",role="all"\} 1/m);
    expect(text).to.match(/^sev_http_request_duration_seconds_bucket\{.*route="\/v1\/health"/m);
    expect(text).to.match(/^sev_queue_jobs\{queue="extract",state="waiting",role="all"\} 0/m);
    expect(text).to.match(/^sev_pool_utilization\{role="all"\} /m);
    expect(text).to.match(/^sev_pool_threads\{role="all"\} [1-9]/m);
    expect(text).to.match(/^sev_workers_alive\{role="all"\} 1/m);
    // Search-index gauges are read from MySQL at scrape time; merge counters start at 0 so increase() sees the first one.
    expect(text).to.match(/^# TYPE sev_index_segments gauge$/m);
    expect(text).to.match(/^# TYPE sev_index_postings gauge$/m);
    expect(text).to.match(/^sev_index_merges_total\{outcome="failed",role="all"\} \d+$/m);
    expect(text).to.match(/^sev_index_merge_duration_seconds_count\{role="all"\} \d+$/m);
    expect(text).to.match(/^process_resident_memory_bytes\{role="all"\} /m);
    expect(text).to.match(/^nodejs_eventloop_lag_seconds\{role="all"\} /m);
  });
});
