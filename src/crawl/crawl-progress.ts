/**
 * The progress bar of npm run crawl on stderr: pages done (fetched or failed) out of those
 * discovered so far, pages per second, errors. Redrawn in place on a terminal; into a file or
 * a pipe, a line at most every few seconds so logs stay readable.
 */
const WIDTH = 30;
const LOG_INTERVAL_MS = 5000;

export interface CrawlProgress {
  done: number;
  total: number;
  errors: number;
  state: string;
}

export class CrawlProgressBar {
  private readonly started = Date.now();
  private lastLog = 0;

  constructor(private readonly stream: NodeJS.WriteStream) {}

  update(progress: CrawlProgress, final = false): void {
    const line = renderCrawlProgress(progress, (Date.now() - this.started) / 1000);
    if (this.stream.isTTY) {
      this.stream.write(`\r${line}\u001b[K${final ? '\n' : ''}`);
    } else if (final || Date.now() - this.lastLog >= LOG_INTERVAL_MS) {
      this.lastLog = Date.now();
      this.stream.write(`${line}\n`);
    }
  }
}

export function renderCrawlProgress(progress: CrawlProgress, elapsedSeconds: number): string {
  const rate = elapsedSeconds > 0 ? progress.done / elapsedSeconds : 0;
  const fraction = progress.total ? Math.min(1, progress.done / progress.total) : 0;
  const filled = Math.round(fraction * WIDTH);
  const bar = '#'.repeat(filled) + '.'.repeat(WIDTH - filled);
  return `[${bar}] ${progress.done}/${progress.total} pages  ${rate.toFixed(1)} pages/s  ${progress.errors} errors  ${progress.state}`;
}
