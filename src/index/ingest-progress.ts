/**
 * The progress bar of npm run ingest, on stderr: done/total, documents per second, errors.
 * On a terminal the line is redrawn in place; into a file or a pipe (CI logs), a line is
 * written at most every few seconds so the log stays readable.
 */
const WIDTH = 30;
const LOG_INTERVAL_MS = 5000;

export interface ProgressState {
  done: number;
  total: number;
  errors: number;
}

export class ProgressBar {
  private readonly started = Date.now();
  private lastLog = 0;

  constructor(private readonly stream: NodeJS.WriteStream) {}

  update(state: ProgressState, final = false): void {
    const line = render(state, (Date.now() - this.started) / 1000);
    if (this.stream.isTTY) {
      this.stream.write(`\r${line}\u001b[K${final ? '\n' : ''}`);
    } else if (final || Date.now() - this.lastLog >= LOG_INTERVAL_MS) {
      this.lastLog = Date.now();
      this.stream.write(`${line}\n`);
    }
  }
}

export function render(state: ProgressState, elapsedSeconds: number): string {
  const rate = elapsedSeconds > 0 ? state.done / elapsedSeconds : 0;
  const fraction = state.total ? Math.min(1, state.done / state.total) : 0;
  const filled = Math.round(fraction * WIDTH);
  const bar = '#'.repeat(filled) + '.'.repeat(WIDTH - filled);
  return `[${bar}] ${state.done}/${state.total} documents  ${rate.toFixed(1)} docs/s  ${state.errors} errors`;
}
