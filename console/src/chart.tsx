/**
 * Charts drawn as inline SVG, no chart library: bars (one or more series side by side) and lines,
 * with a text alternative. Each chart is an image with a title for assistive technology, and
 * its figures are also given as a table next to it (people and tests read the same numbers).
 */

export interface Series {
  name: string;
  /** A class of console.css giving the series its colour (fill for bars, stroke for lines). */
  className: string;
  values: number[];
}

export interface ChartProps {
  id: string;
  title: string;
  labels: string[];
  series: Series[];
  kind: 'bars' | 'lines';
  /** Formats a value on the axis. */
  format(value: number): string;
  /** Horizontal reference lines (a percentile of the whole range). */
  references?: { name: string; value: number; className: string }[];
}

const WIDTH = 640;
const HEIGHT = 220;
const LEFT = 56;
const BOTTOM = 28;
const TOP = 12;
const RIGHT = 8;

/** A round upper bound for the axis: 1, 2 or 5 times a power of ten. */
function niceMax(value: number): number {
  if (value <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) if (step * power >= value) return step * power;
  return 10 * power;
}

export function Chart(props: ChartProps) {
  const all = [...props.series.flatMap((series) => series.values), ...(props.references ?? []).map((line) => line.value)];
  const max = niceMax(Math.max(0, ...all));
  const plotWidth = WIDTH - LEFT - RIGHT;
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const count = Math.max(1, props.labels.length);
  const slot = plotWidth / count;
  const y = (value: number) => TOP + plotHeight - (value / max) * plotHeight;
  const ticks = [0, max / 2, max];
  // At most about eight labels under the axis, whatever the number of buckets.
  const labelEvery = Math.ceil(count / 8);
  const titleId = `${props.id}-title`;
  return (
    <figure class="chart" id={props.id}>
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-labelledby={titleId} class="chart-svg">
        <title id={titleId}>{props.title}</title>
        {ticks.map((tick) => (
          <g key={tick}>
            <line x1={LEFT} x2={WIDTH - RIGHT} y1={y(tick)} y2={y(tick)} class="grid-line" />
            <text x={LEFT - 6} y={y(tick) + 4} text-anchor="end" class="axis-label">{props.format(tick)}</text>
          </g>
        ))}
        {props.kind === 'bars' && props.series.map((series, index) => {
          const barWidth = Math.max(1, (slot * 0.8) / props.series.length);
          return (
            <g key={series.name} class={series.className}>
              {series.values.map((value, bucket) => (
                <rect key={bucket} x={LEFT + bucket * slot + slot * 0.1 + index * barWidth} y={y(value)} width={barWidth} height={Math.max(0, y(0) - y(value))}>
                  <title>{`${props.labels[bucket]}: ${props.format(value)} ${series.name}`}</title>
                </rect>
              ))}
            </g>
          );
        })}
        {props.kind === 'lines' && props.series.map((series) => (
          <polyline
            key={series.name}
            class={series.className}
            fill="none"
            points={series.values.map((value, bucket) => `${LEFT + bucket * slot + slot / 2},${y(value)}`).join(' ')}
          />
        ))}
        {(props.references ?? []).map((line) => (
          <g key={line.name} class={line.className}>
            <line x1={LEFT} x2={WIDTH - RIGHT} y1={y(line.value)} y2={y(line.value)} class="reference" />
            <text x={WIDTH - RIGHT - 4} y={y(line.value) - 4} text-anchor="end" class="axis-label">{`${line.name} ${props.format(line.value)}`}</text>
          </g>
        ))}
        {props.labels.map((label, bucket) => bucket % labelEvery === 0 && (
          <text key={label} x={LEFT + bucket * slot + slot / 2} y={HEIGHT - 8} text-anchor="middle" class="axis-label">{label}</text>
        ))}
      </svg>
      <figcaption>
        <ul class="legend">
          {props.series.map((series) => <li key={series.name}><span class={`swatch ${series.className}`} aria-hidden="true" />{series.name}</li>)}
        </ul>
      </figcaption>
    </figure>
  );
}
