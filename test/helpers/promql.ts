/**
 * What test/prometheus.test.ts needs to check Grafana dashboards and Prometheus rules against a
 * real Prometheus: the PromQL of every panel and variable with Grafana's variables filled in,
 * the metric and label names each expression's selectors use, and the metric names and labels a
 * /metrics page exports.
 */

/** One PromQL expression and where it was found, for the failure message. */
export interface Expression {
  where: string;
  expr: string;
}

/** A query variable's `label_values(selector, label)`, asked through /api/v1/label/<label>/values. */
export interface LabelValuesQuery {
  where: string;
  selector: string;
  label: string;
}

interface Panel {
  title?: string;
  type?: string;
  targets?: { expr?: string; refId?: string; hide?: boolean }[];
  panels?: Panel[];
}

interface Variable {
  name: string;
  type: string;
  query?: string | { query?: string };
  allValue?: string | null;
  includeAll?: boolean;
  current?: { value?: string | string[] };
  options?: { value?: string }[];
}

export interface Dashboard {
  title: string;
  panels?: Panel[];
  templating?: { list?: Variable[] };
}

/** Grafana's built-in interval variables, with values that suit a Prometheus scraping every second. */
const BUILT_INS: Record<string, string> = {
  __rate_interval: '1m',
  __rate_interval_ms: '60000',
  __interval: '15s',
  __interval_ms: '15000',
  __range: '1h',
  __range_s: '3600',
  __range_ms: '3600000',
};

/**
 * The values a dashboard's variables stand for in the test: a query or custom variable with
 * "All" its allValue (else `.*`, what Grafana sends for All in a regex matcher), an interval
 * variable its first option, any other its current value.
 */
export function variableValues(dashboard: Dashboard): Record<string, string> {
  const values: Record<string, string> = { ...BUILT_INS };
  for (const variable of dashboard.templating?.list ?? []) {
    if (variable.type === 'datasource') continue;
    const current = variable.current?.value;
    const first = Array.isArray(current) ? current[0] : current;
    if (variable.includeAll || first === '$__all') values[variable.name] = variable.allValue ?? '.*';
    else if (variable.type === 'interval') values[variable.name] = variable.options?.[0]?.value ?? first ?? '1m';
    else values[variable.name] = first ?? '.*';
  }
  return values;
}

/** `$name`, `${name}`, `${name:format}` and `[[name]]` replaced; an unknown variable is left for Prometheus to refuse. */
export function substitute(expr: string, values: Readonly<Record<string, string>>): string {
  const value = (name: string, whole: string) => values[name] ?? whole;
  return expr
    .replace(/\$\{(\w+)(?::[^}]*)?\}/g, (whole, name: string) => value(name, whole))
    .replace(/\[\[(\w+)\]\]/g, (whole, name: string) => value(name, whole))
    .replace(/\$(\w+)/g, (whole, name: string) => value(name, whole));
}

/** Every visible target of every panel (inside rows too) and every query variable, variables filled in. */
export function dashboardQueries(dashboard: Dashboard): { expressions: Expression[]; labelValues: LabelValuesQuery[] } {
  const values = variableValues(dashboard);
  const expressions: Expression[] = [];
  const labelValues: LabelValuesQuery[] = [];
  const walk = (panels: Panel[]) => {
    for (const panel of panels) {
      for (const target of panel.targets ?? []) {
        if (!target.expr || target.hide) continue;
        expressions.push({ where: `dashboard "${dashboard.title}", panel "${panel.title ?? '(untitled)'}", query ${target.refId ?? '?'}`, expr: substitute(target.expr, values) });
      }
      walk(panel.panels ?? []);
    }
  };
  walk(dashboard.panels ?? []);
  for (const variable of dashboard.templating?.list ?? []) {
    if (variable.type !== 'query') continue;
    const where = `dashboard "${dashboard.title}", variable "${variable.name}"`;
    const query = substitute((typeof variable.query === 'string' ? variable.query : variable.query?.query) ?? '', values).trim();
    const labelValuesCall = /^label_values\((.*),\s*([a-zA-Z_]\w*)\s*\)$/s.exec(query);
    const queryResult = /^query_result\((.*)\)$/s.exec(query);
    if (labelValuesCall) labelValues.push({ where, selector: labelValuesCall[1]!.trim(), label: labelValuesCall[2]! });
    else if (queryResult) expressions.push({ where, expr: queryResult[1]! });
    else throw new Error(`${where}: the test knows label_values(selector, label) and query_result(expr), not "${query}"`);
  }
  return { expressions, labelValues };
}

/** A vector selector of an expression: its metric name (undefined for `{…}` alone) and the label names it matches on. */
export interface Selector {
  metric: string | undefined;
  labels: string[];
}

const KEYWORDS = new Set(['and', 'or', 'unless', 'bool', 'offset', 'by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'atan2', 'inf', 'nan']);
/** Aggregation operators, which may be followed by `by (…)` or `without (…)` rather than `(`. */
const AGGREGATIONS = new Set(['sum', 'avg', 'min', 'max', 'count', 'group', 'stddev', 'stdvar', 'topk', 'bottomk', 'quantile', 'count_values', 'limitk', 'limit_ratio']);
/** Keywords followed by a parenthesised list of label names, not an expression. */
const LABEL_LISTS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right']);

/**
 * The selectors of a PromQL expression, found by a small scanner: strings, comments, ranges,
 * numbers and durations, keywords and label lists are skipped, an identifier followed by `(` is a
 * function or aggregation, any other identifier is a metric name, with the matchers of the `{…}`
 * after it. `{__name__="x"}` names metric x. Syntax errors are Prometheus' to report.
 */
export function selectors(expr: string): Selector[] {
  const found: Selector[] = [];
  let i = 0;
  const skipSpace = () => {
    while (i < expr.length) {
      if (/\s/.test(expr[i]!)) i++;
      else if (expr[i] === '#') while (i < expr.length && expr[i] !== '\n') i++;
      else break;
    }
  };
  const readString = (): string => {
    const quote = expr[i++]!;
    let value = '';
    while (i < expr.length && expr[i] !== quote) {
      if (expr[i] === '\\' && quote !== '`') i++;
      value += expr[i++] ?? '';
    }
    i++;
    return value;
  };
  const skipPast = (open: string, close: string) => {
    let depth = 0;
    while (i < expr.length) {
      const c = expr[i]!;
      if (c === '"' || c === "'" || c === '`') { readString(); continue; }
      i++;
      if (c === open) depth++;
      else if (c === close && --depth === 0) return;
    }
  };
  const readMatchers = (selector: Selector) => {
    i++; // {
    for (;;) {
      skipSpace();
      if (i >= expr.length || expr[i] === '}') { i++; return; }
      if (expr[i] === ',') { i++; continue; }
      if (expr[i] === '"' || expr[i] === "'" || expr[i] === '`') { selector.metric ??= readString(); continue; } // {"name"} (Prometheus 3)
      const name = /^[a-zA-Z_][a-zA-Z0-9_]*/.exec(expr.slice(i))?.[0];
      if (!name) { i++; continue; }
      i += name.length;
      skipSpace();
      const op = /^(=~|!~|!=|=)/.exec(expr.slice(i))?.[0] ?? '';
      i += op.length;
      skipSpace();
      const value = expr[i] === '"' || expr[i] === "'" || expr[i] === '`' ? readString() : '';
      if (name === '__name__' && op === '=') selector.metric = value;
      else if (name !== '__name__') selector.labels.push(name);
    }
  };
  while (i < expr.length) {
    skipSpace();
    if (i >= expr.length) break;
    const c = expr[i]!;
    if (c === '"' || c === "'" || c === '`') { readString(); continue; }
    if (c === '[') { skipPast('[', ']'); continue; }
    if (c === '{') {
      const selector: Selector = { metric: undefined, labels: [] };
      readMatchers(selector);
      found.push(selector);
      continue;
    }
    const number = /^(?:0x[0-9a-fA-F]+|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?(?:ms|[smhdwy])?(?:\d+(?:ms|[smhdwy]))*)/.exec(expr.slice(i));
    if (number && number[0].length > 0) { i += number[0].length; continue; }
    const identifier = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(expr.slice(i))?.[0];
    if (!identifier) { i++; continue; }
    i += identifier.length;
    skipSpace();
    const lower = identifier.toLowerCase();
    if (LABEL_LISTS.has(lower)) {
      if (expr[i] === '(') skipPast('(', ')');
      continue;
    }
    if (KEYWORDS.has(lower) || AGGREGATIONS.has(lower) || expr[i] === '(') continue;
    const selector: Selector = { metric: identifier, labels: [] };
    if (expr[i] === '{') readMatchers(selector);
    found.push(selector);
  }
  return found;
}

/** What a /metrics page exports: every metric name a query can select, with the label names of its samples. */
export interface Exported {
  /** Selectable name → label names seen on its samples (empty when the metric has no sample yet). */
  names: Map<string, Set<string>>;
  /** Names with at least one sample. */
  sampled: Set<string>;
}

const SUFFIXES: Record<string, string[]> = {
  histogram: ['_bucket', '_sum', '_count'],
  summary: ['', '_sum', '_count'],
  gaugehistogram: ['_bucket', '_gsum', '_gcount'],
};

/** Reads the text exposition format: `# TYPE` lines declare names (a histogram's _bucket, _sum and _count), samples give labels. */
export function exportedMetrics(text: string): Exported {
  const names = new Map<string, Set<string>>();
  const sampled = new Set<string>();
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)/.exec(line);
    if (type) {
      for (const suffix of SUFFIXES[type[2]!] ?? ['']) names.set(type[1]! + suffix, names.get(type[1]! + suffix) ?? new Set());
      continue;
    }
    if (line.startsWith('#') || line.trim() === '') continue;
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s/.exec(line);
    if (!sample) continue;
    const labels = names.get(sample[1]!) ?? new Set<string>();
    names.set(sample[1]!, labels);
    sampled.add(sample[1]!);
    for (const match of (sample[3] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="(?:[^"\\]|\\.)*"/g)) labels.add(match[1]!);
  }
  return { names, sampled };
}

/** The value of the sample of `name` whose labels include `labels` (any order), or undefined when there is none. */
export function sampleValue(text: string, name: string, labels: Readonly<Record<string, string>> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!sample || sample[1] !== name) continue;
    const found = new Map([...(sample[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1]!, m[2]!]));
    if (Object.entries(labels).every(([label, value]) => found.get(label) === value)) return Number(sample[3]);
  }
  return undefined;
}
