/**
 * The progress bar of the command-line tools (npm run ingest, npm run crawl), on stderr:
 * done/total, rate, errors and an optional state. On a terminal the line is redrawn in place;
 * into a file or a pipe (CI logs), a line is written at most every few seconds so the log
 * stays readable.
 */
const WIDTH = 30;
const LOG_INTERVAL_MS = 5000;

export interface Progress {
  done: number;
  total: number;
  errors: number;
  /** Shown after the errors (a crawl's state). */
  state?: string;
}

/** What is counted: plural name in the count and short name in the rate ("documents", "docs"). */
export interface Units {
  name: string;
  rate: string;
}

export class ProgressBar {
  private readonly started = Date.now();
  private lastLog = 0;

  constructor(private readonly stream: NodeJS.WriteStream, private readonly units: Units) {}

  update(progress: Progress, final = false): void {
    const line = renderProgress(progress, this.units, (Date.now() - this.started) / 1000);
    if (this.stream.isTTY) {
      this.stream.write(`\r${line}\u001b[K${final ? '\n' : ''}`);
    } else if (final || Date.now() - this.lastLog >= LOG_INTERVAL_MS) {
      this.lastLog = Date.now();
      this.stream.write(`${line}\n`);
    }
  }
}

export function renderProgress(progress: Progress, units: Units, elapsedSeconds: number): string {
  const rate = elapsedSeconds > 0 ? progress.done / elapsedSeconds : 0;
  const fraction = progress.total ? Math.min(1, progress.done / progress.total) : 0;
  const filled = Math.round(fraction * WIDTH);
  const bar = '#'.repeat(filled) + '.'.repeat(WIDTH - filled);
  const state = progress.state ? `  ${progress.state}` : '';
  return `[${bar}] ${progress.done}/${progress.total} ${units.name}  ${rate.toFixed(1)} ${units.rate}/s  ${progress.errors} errors${state}`;
}
