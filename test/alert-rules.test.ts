import { expect } from 'chai';
import { ConditionError, holds, parseCondition } from '../src/alerts/condition.js';
import { step, type StateRecord } from '../src/alerts/alert-state.js';
import { liveScopeOf, metricValue, type Figures } from '../src/alerts/alert-figures.js';
import { emptyCounts } from '../src/monitor/live-store.js';
import { latencyBucket } from '../src/monitor/latency-buckets.js';

function refusal(text: string): ConditionError {
  try {
    parseCondition(text);
  } catch (error) {
    if (error instanceof ConditionError) return error;
    throw error;
  }
  throw new Error(`"${text}" parsed`);
}

describe('alert conditions', () => {
  it('parses the conditions the specification shows, and units', () => {
    expect(parseCondition('error_rate > 0.05')).to.deep.equal({ metric: 'error_rate', comparator: '>', threshold: 0.05 });
    expect(parseCondition('usage_percentage>80')).to.deep.equal({ metric: 'usage_percentage', comparator: '>', threshold: 80 });
    expect(parseCondition('  avg_response_time >= 2  ')).to.deep.equal({ metric: 'avg_response_time', comparator: '>=', threshold: 2 });
    expect(parseCondition('error_rate > 5%').threshold).to.equal(0.05);
    expect(parseCondition('usage_percentage > 80%').threshold).to.equal(80);
    expect(parseCondition('p95_response_time > 500ms').threshold).to.equal(0.5);
    expect(parseCondition('p95_response_time > 1.5 s').threshold).to.equal(1.5);
    expect(parseCondition('requests_per_minute < 10')).to.deep.equal({ metric: 'requests_per_minute', comparator: '<', threshold: 10 });
    expect(parseCondition('queue_depth != -1').comparator).to.equal('!=');
  });

  it('refuses a mistake at its position, saying what was expected there', () => {
    const cases: Array<[string, number, RegExp]> = [
      ['err_rate > 0.05', 0, /expected a metric \(error_rate, .*\), found 'err_rate'/],
      ['', 0, /expected a metric .*found the end of the condition/],
      ['error_rate', 10, /expected a comparison \(> >= < <= == !=\) after the metric, found the end/],
      ['error_rate => 0.05', 11, /expected a comparison/],
      ['error_rate >', 12, /expected a number after '>', found the end of the condition/],
      ['error_rate > high', 13, /expected a number after '>', found 'high'/],
      ['error_rate > 0.05 and x', 18, /expected the end of the condition, found 'and'/],
      ['queue_depth > 5%', 15, /no unit after the number: queue_depth is a count/],
      ['error_rate > 5ms', 14, /no unit or one of % for error_rate/],
      ['error_rate > 1e3', 14, /expected the end of the condition, found 'e3'/],
    ];
    for (const [text, position, message] of cases) {
      const error = refusal(text);
      expect(error.position, text).to.equal(position);
      expect(error.message, text).to.match(message);
      expect(error.message, text).to.match(new RegExp(`^at position ${position}: `));
    }
  });

  it('compares as written', () => {
    const c = parseCondition('error_rate >= 0.5');
    expect(holds(c, 0.5)).to.equal(true);
    expect(holds(c, 0.49)).to.equal(false);
    expect(holds(parseCondition('error_rate < 0.5'), 0.5)).to.equal(false);
    expect(holds(parseCondition('queue_depth == 3'), 3)).to.equal(true);
  });
});

describe('alert states', () => {
  const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));
  const inactive: StateRecord = { state: 'inactive', since: at(0) };

  it('fires at once without a duration, and resolves once', () => {
    const fired = step(inactive, true, 0, at(1));
    expect(fired).to.deep.include({ changed: true, notify: 'alert.firing' });
    expect(fired.next).to.deep.equal({ state: 'firing', since: at(1) });
    expect(step(fired.next, true, 0, at(2))).to.deep.equal({ next: fired.next, changed: false });
    const resolved = step(fired.next, false, 0, at(3));
    expect(resolved).to.deep.include({ changed: true, notify: 'alert.resolved' });
    expect(step(resolved.next, false, 0, at(4)).changed).to.equal(false);
  });

  it('waits out the duration in pending, and forgets a condition that stopped holding before it', () => {
    const pending = step(inactive, true, 5000, at(1));
    expect(pending.next.state).to.equal('pending');
    expect(pending.notify).to.equal(undefined);
    expect(step(pending.next, true, 5000, at(5)).changed).to.equal(false);
    const fired = step(pending.next, true, 5000, at(6));
    expect(fired.next.state).to.equal('firing');
    expect(fired.notify).to.equal('alert.firing');
    const dropped = step(pending.next, false, 5000, at(3));
    expect(dropped.next.state).to.equal('inactive');
    expect(dropped.notify).to.equal(undefined);
  });

  it('starts over from resolved', () => {
    const again = step({ state: 'resolved', since: at(0) }, true, 1000, at(1));
    expect(again.next.state).to.equal('pending');
  });
});

describe('alert figures', () => {
  const figures = (over: Partial<Figures> = {}): Figures => ({
    window: emptyCounts(), windowMinutes: 5, deploymentRequestsPerMinute: 42, queueDepth: 7, quota: undefined, ...over,
  });
  const deployment = { accountId: null, mode: null, endpoint: null };
  const account = { accountId: 'acct_1', mode: 'live' as const, endpoint: null };

  it('reads rates and times from the window, and says when there is no data', () => {
    const window = emptyCounts();
    window.n = 200;
    window.err = 10;
    window.us = 200 * 150_000;
    window.hit = 30;
    window.miss = 70;
    for (let i = 0; i < 190; i++) window.lat[latencyBucket(40)]!++;
    for (let i = 0; i < 10; i++) window.lat[latencyBucket(2000)]!++;
    const f = figures({ window });
    expect(metricValue('error_rate', account, f)).to.equal(0.05);
    expect(metricValue('success_rate', account, f)).to.equal(0.95);
    expect(metricValue('cache_hit_rate', account, f)).to.equal(0.3);
    expect(metricValue('avg_response_time', account, f)).to.equal(0.15);
    expect(metricValue('p50_response_time', account, f)).to.be.within(0.025, 0.05);
    expect(metricValue('p99_response_time', account, f)).to.be.within(1, 2.5);
    expect(metricValue('requests_per_minute', account, f)).to.equal(40);
    expect(metricValue('errors_per_minute', account, f)).to.equal(2);
    for (const metric of ['error_rate', 'success_rate', 'cache_hit_rate', 'avg_response_time', 'p95_response_time'] as const) {
      expect(metricValue(metric, account, figures()), metric).to.equal(null);
    }
  });

  it('takes the deployment\'s load and queue depth as live metrics report them, and usage from the quota', () => {
    expect(metricValue('requests_per_minute', deployment, figures())).to.equal(42);
    expect(metricValue('queue_depth', account, figures())).to.equal(7);
    expect(metricValue('usage_percentage', account, figures({ quota: { used: 850, limit: 1000 } }))).to.equal(85);
    expect(metricValue('usage_percentage', account, figures())).to.equal(null);
  });

  it('reads each scope from its own counts', () => {
    expect(liveScopeOf(deployment)).to.equal('all');
    expect(liveScopeOf({ ...deployment, mode: 'test' })).to.equal('mode:test');
    expect(liveScopeOf({ ...deployment, endpoint: '/v1/search' })).to.equal('ep:/v1/search');
    expect(liveScopeOf(account)).to.equal('acct:acct_1:live');
    expect(liveScopeOf({ ...account, endpoint: '/v1/search' })).to.equal('acctep:acct_1:live:/v1/search');
  });
});
