import { useEffect, useState } from 'preact/hooks';
import { api, query } from '../api.js';
import { Chart } from '../chart.js';
import type { Session, Usage, UsageBucket } from '../types.js';
import { ErrorNotice, milliseconds, PageTitle, percent, Time } from '../ui.js';

const PERIODS = ['hour', 'day', 'week', 'month', 'year'] as const;
const BREAKDOWNS = ['hour', 'day', 'week'] as const;
/** A breakdown that gives a readable number of buckets for each period. */
const DEFAULT_BREAKDOWN: Record<(typeof PERIODS)[number], (typeof BREAKDOWNS)[number]> = { hour: 'hour', day: 'hour', week: 'day', month: 'day', year: 'week' };

function errorsOf(bucket: UsageBucket): number {
  return Math.round(bucket.requests * (1 - bucket.success_rate));
}

function label(bucket: UsageBucket, breakdown: string): string {
  if (breakdown === 'hour') return `${bucket.date.slice(11, 13)}h`;
  return bucket.date.slice(5, 10);
}

/** GET /v1/usage over the periods it knows: requests and errors, latency, quota, endpoints. */
export function UsagePage(_props: { session: Session }) {
  const [period, setPeriod] = useState<(typeof PERIODS)[number]>('day');
  const [breakdown, setBreakdown] = useState<(typeof BREAKDOWNS)[number]>('hour');
  const [usage, setUsage] = useState<Usage | null>(null);
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    setError(null);
    api<Usage>('GET', `/v1/usage${query({ period, breakdown })}`).then(setUsage, setError);
  }, [period, breakdown]);

  const buckets = usage?.usage_breakdown ?? [];
  const labels = buckets.map((bucket) => label(bucket, usage!.period.breakdown));
  const requests = buckets.reduce((sum, bucket) => sum + bucket.requests, 0);
  const errors = buckets.reduce((sum, bucket) => sum + errorsOf(bucket), 0);
  const quota = usage?.current_period;
  const performance = usage?.performance_metrics;

  return (
    <>
      <PageTitle>Usage</PageTitle>
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <div>
          <label for="usage-period">Period</label>
          <select id="usage-period" value={period} onChange={(e) => {
            const next = e.currentTarget.value as (typeof PERIODS)[number];
            setPeriod(next);
            setBreakdown(DEFAULT_BREAKDOWN[next]);
          }}>
            {PERIODS.map((value) => <option key={value} value={value}>{`this ${value}`}</option>)}
          </select>
        </div>
        <div>
          <label for="usage-breakdown">Per</label>
          <select id="usage-breakdown" value={breakdown} onChange={(e) => setBreakdown(e.currentTarget.value as (typeof BREAKDOWNS)[number])}>
            {BREAKDOWNS.map((value) => <option key={value} value={value}>{value}</option>)}
          </select>
        </div>
      </form>
      <ErrorNotice error={error} />
      {usage && (
        <>
          <p class="period">From <Time value={usage.period.start} /> to <Time value={usage.period.end} />.</p>
          <dl class="figures" data-testid="usage-figures">
            <div><dt>Requests</dt><dd data-figure="requests">{requests}</dd></div>
            <div><dt>Errors</dt><dd data-figure="errors">{errors}</dd></div>
            <div><dt>Success rate</dt><dd>{percent(performance!.success_rate)}</dd></div>
            <div><dt>Mean latency</dt><dd>{milliseconds(performance!.avg_response_time)}</dd></div>
            <div><dt>p95 latency</dt><dd data-figure="p95">{milliseconds(performance!.p95_response_time)}</dd></div>
            <div><dt>p99 latency</dt><dd>{milliseconds(performance!.p99_response_time)}</dd></div>
            <div><dt>Cache hit rate</dt><dd>{percent(performance!.cache_hit_rate)}</dd></div>
          </dl>

          <h2>Requests and errors</h2>
          <Chart
            id="chart-requests"
            kind="bars"
            title={`Requests and errors per ${usage.period.breakdown}: ${requests} requests, ${errors} errors`}
            labels={labels}
            series={[
              { name: 'requests', className: 'series-requests', values: buckets.map((bucket) => bucket.requests) },
              { name: 'errors', className: 'series-errors', values: buckets.map(errorsOf) },
            ]}
            format={(value) => String(Math.round(value))}
          />

          <h2>Latency</h2>
          <Chart
            id="chart-latency"
            kind="lines"
            title={`Mean latency per ${usage.period.breakdown}, with the 95th and 99th percentiles of the period`}
            labels={labels}
            series={[{ name: 'mean latency', className: 'series-latency', values: buckets.map((bucket) => bucket.avg_response_time) }]}
            references={[
              { name: 'p95', value: performance!.p95_response_time, className: 'series-p95' },
              { name: 'p99', value: performance!.p99_response_time, className: 'series-p99' },
            ]}
            format={milliseconds}
          />

          <h2>Monthly quota</h2>
          {quota && quota.requests_used !== null && (
            <div class="quota" data-testid="quota">
              <svg viewBox="0 0 400 16" role="img" aria-labelledby="quota-text" class="meter">
                <rect x="0" y="0" width="400" height="16" class="meter-track" />
                <rect x="0" y="0" width={quota.requests_limit ? Math.min(400, (400 * quota.requests_used) / quota.requests_limit) : 0} height="16" class="meter-fill" />
              </svg>
              <p id="quota-text">
                {quota.requests_limit === null
                  ? `${quota.requests_used} requests this month; the plan has no monthly limit.`
                  : `${quota.requests_used} of ${quota.requests_limit} requests this month (${quota.usage_percentage?.toFixed(1)} %).`}
                {' '}Resets <Time value={quota.reset_date} /> ({quota.days_until_reset} days).
              </p>
            </div>
          )}

          <h2 id="per-bucket">Figures per {usage.period.breakdown}</h2>
          <div class="scroll" tabIndex={0} role="region" aria-labelledby="per-bucket">
            <table data-testid="usage-table">
              <thead><tr><th scope="col">From</th><th scope="col">Requests</th><th scope="col">Errors</th><th scope="col">Mean latency</th><th scope="col">Cache hits</th></tr></thead>
              <tbody>
                {buckets.map((bucket) => (
                  <tr key={bucket.date}><th scope="row">{bucket.date}</th><td>{bucket.requests}</td><td>{errorsOf(bucket)}</td><td>{milliseconds(bucket.avg_response_time)}</td><td>{percent(bucket.cache_hit_rate)}</td></tr>
                ))}
              </tbody>
            </table>
          </div>

          <h2 id="per-endpoint">Endpoints</h2>
          <div class="scroll" tabIndex={0} role="region" aria-labelledby="per-endpoint">
            <table>
              <thead><tr><th scope="col">Endpoint</th><th scope="col">Requests</th><th scope="col">Share</th><th scope="col">Mean latency</th><th scope="col">Success rate</th></tr></thead>
              <tbody>
                {Object.entries(usage.endpoint_usage).map(([endpoint, figures]) => (
                  <tr key={endpoint}><th scope="row"><code>{endpoint}</code></th><td>{figures.requests}</td><td>{figures.percentage.toFixed(1)} %</td><td>{milliseconds(figures.avg_response_time)}</td><td>{percent(figures.success_rate)}</td></tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </>
  );
}
