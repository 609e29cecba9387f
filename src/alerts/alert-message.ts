/** The sentences an alert's history and notifications carry. */
import { ALERT_METRICS } from './alert-metrics.js';
import type { AlertScope } from './alert-figures.js';
import type { AlertState } from './alert-state.js';
import type { Condition } from './condition.js';

/** A value in the metric's unit, readably: ratios as percentages, times in ms or s. */
export function formatValue(condition: Condition, value: number | null): string {
  if (value === null) return 'no data';
  switch (ALERT_METRICS[condition.metric].kind) {
    case 'ratio': return `${round(value * 100)}%`;
    case 'percent': return `${round(value)}%`;
    case 'seconds': return value < 1 ? `${round(value * 1000)} ms` : `${round(value)} s`;
    case 'count': return `${round(value)}`;
  }
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}

export function scopeText(scope: AlertScope): string {
  const who = scope.accountId !== null ? `account ${scope.accountId} (${scope.mode ?? 'live'})` : scope.mode !== null ? `${scope.mode} requests` : 'the deployment';
  return scope.endpoint !== null ? `${who}, ${scope.endpoint}` : who;
}

/** What the change from `from` to `to` says, with the value that caused it. */
export function transitionMessage(
  alert: { name: string; condition: Condition; text: string; scope: AlertScope },
  from: AlertState,
  to: AlertState,
  value: number | null,
): string {
  const { condition } = alert;
  const figure = `${condition.metric} is ${formatValue(condition, value)}`;
  const where = scopeText(alert.scope);
  switch (to) {
    case 'pending': return `${alert.name}: ${figure} (${alert.text}) on ${where}; firing if it holds for the alert's duration`;
    case 'firing': return `${alert.name} is firing: ${figure} (${alert.text}) on ${where}`;
    case 'resolved': return `${alert.name} is resolved: ${figure}, ${alert.text} no longer holds on ${where}`;
    case 'inactive': return from === 'pending'
      ? `${alert.name}: ${figure}, ${alert.text} stopped holding before the duration passed on ${where}`
      : `${alert.name} is inactive on ${where}`;
  }
}
