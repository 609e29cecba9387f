/**
 * Alert conditions: a small grammar, parsed by hand (no eval, no regular expression that would
 * only say "invalid"), so a mistake is reported at its position with what was expected there.
 *
 *   condition  = metric comparator number [unit]
 *   metric     = one of ALERT_METRICS (error_rate, p95_response_time, ...)
 *   comparator = ">" | ">=" | "<" | "<=" | "==" | "!="
 *   number     = ["-"] digits ["." digits]
 *   unit       = "%" (ratios and percentages) | "s" | "ms" (times)
 *
 * Blanks may separate the parts. `error_rate > 5%` is `error_rate > 0.05`.
 */
import { ALERT_METRIC_NAMES, ALERT_METRICS, isAlertMetric, UNITS, type AlertMetric } from './alert-metrics.js';

export const COMPARATORS = ['>', '>=', '<', '<=', '==', '!='] as const;
export type Comparator = (typeof COMPARATORS)[number];

export interface Condition {
  metric: AlertMetric;
  comparator: Comparator;
  /** In the metric's own unit (ratio, percent, seconds, count). */
  threshold: number;
}

export class ConditionError extends Error {
  constructor(
    /** 0-based character position in the condition. */
    readonly position: number,
    /** What the parser expected there. */
    readonly expected: string,
    found: string,
  ) {
    super(`at position ${position}: expected ${expected}, found ${found}`);
  }
}

const MAX_LENGTH = 200;

function describe(text: string, at: number): string {
  if (at >= text.length) return 'the end of the condition';
  const word = /^[A-Za-z0-9_.%-]+/.exec(text.slice(at))?.[0] ?? text[at]!;
  return `'${word}'`;
}

/** Parses `text`; throws ConditionError at the first mistake. */
export function parseCondition(text: string): Condition {
  if (text.length > MAX_LENGTH) throw new ConditionError(MAX_LENGTH, `at most ${MAX_LENGTH} characters`, 'more');
  let at = 0;
  const blanks = () => {
    while (at < text.length && /\s/.test(text[at]!)) at++;
  };

  blanks();
  const metricStart = at;
  while (at < text.length && /[a-z0-9_]/i.test(text[at]!)) at++;
  const name = text.slice(metricStart, at);
  if (!isAlertMetric(name)) {
    throw new ConditionError(metricStart, `a metric (${ALERT_METRIC_NAMES.join(', ')})`, name === '' ? describe(text, metricStart) : `'${name}'`);
  }

  blanks();
  const comparatorStart = at;
  const two = text.slice(at, at + 2);
  const comparator = (COMPARATORS as readonly string[]).includes(two) ? two : (COMPARATORS as readonly string[]).includes(text[at] ?? '') ? text[at]! : undefined;
  if (comparator === undefined) throw new ConditionError(comparatorStart, `a comparison (${COMPARATORS.join(' ')}) after the metric`, describe(text, at));
  at += comparator.length;

  blanks();
  const numberStart = at;
  const number = /^-?\d+(?:\.\d+)?/.exec(text.slice(at))?.[0];
  if (number === undefined) throw new ConditionError(numberStart, `a number after '${comparator}'`, describe(text, at));
  at += number.length;

  const units = UNITS[ALERT_METRICS[name].kind];
  blanks();
  const unit = /^(?:%|ms|s)(?![A-Za-z0-9_])/.exec(text.slice(at))?.[0];
  let factor = 1;
  if (unit !== undefined) {
    const known = units[unit];
    if (known === undefined) {
      const allowed = Object.keys(units);
      throw new ConditionError(at, allowed.length > 0 ? `no unit or one of ${allowed.join(', ')} for ${name}` : `no unit after the number: ${name} is a count`, `'${unit}'`);
    }
    factor = known;
    at += unit.length;
    blanks();
  }
  if (at < text.length) throw new ConditionError(at, 'the end of the condition', describe(text, at));

  // Rounded to drop binary noise from the unit factor (5% is 0.05, not 0.05000000000000000277).
  const threshold = Number((Number(number) * factor).toPrecision(12));
  return { metric: name, comparator: comparator as Comparator, threshold };
}

export function holds(condition: Condition, value: number): boolean {
  return compare(condition.comparator, value, condition.threshold);
}

export function compare(comparator: Comparator, value: number, threshold: number): boolean {
  switch (comparator) {
    case '>': return value > threshold;
    case '>=': return value >= threshold;
    case '<': return value < threshold;
    case '<=': return value <= threshold;
    case '==': return value === threshold;
    case '!=': return value !== threshold;
  }
}

/** The condition as it is shown and stored: normalised spacing, the threshold in the metric's unit. */
export function formatCondition(condition: Condition): string {
  return `${condition.metric} ${condition.comparator} ${condition.threshold}`;
}
