/**
 * One headless Chromium per worker process, launched on the first page that needs it, and a
 * bounded number of browser contexts in it (RENDER_CONTEXTS): each rendering job gets a fresh
 * context (its own cookies, storage and cache) that is closed after it. Jobs beyond the bound
 * wait for a context, within their deadline.
 *
 * The browser's own network is a dead end: every request a page makes is intercepted and
 * relayed through the SSRF-guarded fetcher (render-page.ts), and Chromium is told to send
 * anything else (a WebSocket, a request interception does not see) through a proxy that is a
 * local socket closing every connection. So the guard failing open takes two mistakes.
 *
 * A browser that dies (killed, crashed) is forgotten and launched again by the next job; one
 * whose processes hold more than RENDER_BROWSER_MAX_MB is closed on purpose, the same way.
 * Renders cut short by either are retried once by render-page.ts.
 */
import { randomUUID } from 'node:crypto';
import { accessSync, constants as fsConstants } from 'node:fs';
import fs from 'node:fs/promises';
import net from 'node:net';
import type { Browser, BrowserContext } from 'playwright-core';
import type { RenderConfig } from '../config.js';
import type { Logger } from '../log/logger.js';
import type { Metrics } from '../metrics/metrics.js';
import { descendants, treeMemoryMb } from './process-memory.js';

/** The flags Chromium always gets, on top of Playwright's own. */
export const CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'];

const LAUNCH_TIMEOUT_MS = 30_000;
const MEMORY_CHECK_MS = 2000;

export type BrowserPoolMetrics = Pick<Metrics, 'renderBrowserRestarts' | 'renderContextsInUse'>;

export interface BrowserPoolOptions {
  config: RenderConfig;
  /** The User-Agent the browser sends (FETCH_USER_AGENT), like every other fetch. */
  userAgent: string;
  metrics?: BrowserPoolMetrics | undefined;
  logger?: Pick<Logger, 'warn' | 'info'> | undefined;
}

/** What a worker's heartbeat says of its browser, for /v1/health. */
export interface BrowserStats {
  /** RENDER_DEFAULT: with `always`, a worker without a browser cannot answer a plain extraction. */
  default_mode: RenderConfig['defaultMode'];
  /** Chromium is at CHROMIUM_PATH, executable. */
  installed: boolean;
  /** A browser is running (it is launched by the first page to render). */
  running: boolean;
  contexts: number;
  contexts_in_use: number;
  /** Rendering jobs waiting for a context. */
  waiting: number;
  /** Browsers that went away (crash or memory) since the process started. */
  restarts: number;
  /** Why the last launch failed, until one succeeds. */
  launch_error: string | null;
}

/** A context on loan to one job, with the browser it lives in. */
export interface Lease {
  readonly context: BrowserContext;
  readonly browser: Browser;
}

interface Running {
  readonly browser: Browser;
  /** The browser process, where /proc tells it. */
  readonly pid: number | undefined;
  readonly sink: net.Server;
  watch: NodeJS.Timeout | undefined;
  /** Set when it is done with: closed on purpose, or found gone. */
  retired: boolean;
}

/** Chromium is there but would not start (a missing library, a broken install): the message says why. */
export class BrowserLaunchError extends Error {
  constructor(path: string, cause: unknown) {
    super(`the browser at ${path} did not start: ${firstLine(cause)}`, { cause });
    this.name = 'BrowserLaunchError';
  }
}

/** The browser went away (killed, crashed, restarted) before the context could be opened. */
export class BrowserGoneError extends Error {
  constructor() {
    super('the browser went away');
    this.name = 'BrowserGoneError';
  }
}

export class BrowserPool {
  private readonly slots: Slots;
  private current: Running | undefined;
  private launching: Promise<Running> | undefined;
  private closed = false;
  private restarts = 0;
  private launchError: string | null = null;

  constructor(private readonly options: BrowserPoolOptions) {
    this.slots = new Slots(options.config.contexts);
  }

  /** Why no page can be rendered here (no Chromium at CHROMIUM_PATH), or undefined when one can. */
  async unavailable(): Promise<string | undefined> {
    const path = this.options.config.chromiumPath;
    try {
      await fs.access(path, fs.constants.X_OK);
      return undefined;
    } catch {
      return `no Chromium browser at ${path} (install Debian's chromium package, or set CHROMIUM_PATH)`;
    }
  }

  stats(): BrowserStats {
    const { config } = this.options;
    let installed = true;
    try {
      accessSync(config.chromiumPath, fsConstants.X_OK);
    } catch {
      installed = false;
    }
    return {
      default_mode: config.defaultMode,
      installed,
      running: this.current !== undefined,
      contexts: config.contexts,
      contexts_in_use: this.slots.inUse(),
      waiting: this.slots.waiters(),
      restarts: this.restarts,
      launch_error: this.launchError,
    };
  }

  /**
   * Runs `use` with a fresh context once one of the RENDER_CONTEXTS slots is free; the context is
   * closed after, whatever happens. Rejects with the signal's reason if it aborts while waiting
   * (once `use` runs, the signal is its business).
   */
  async withContext<T>(signal: AbortSignal, use: (lease: Lease) => Promise<T>): Promise<T> {
    await this.slots.acquire(signal);
    try {
      const running = await this.browser();
      const { browser } = running;
      const context = await browser.newContext({
        userAgent: this.options.userAgent,
        // Service workers fetch outside request interception; downloads write to disk.
        serviceWorkers: 'block',
        acceptDownloads: false,
      }).catch(async (error: unknown) => {
        // A call's failure can come a turn before the 'disconnected' that explains it.
        await new Promise((resolve) => setImmediate(resolve));
        throw running.retired || !browser.isConnected() ? new BrowserGoneError() : error;
      });
      this.options.metrics?.renderContextsInUse.inc();
      try {
        return await use({ context, browser });
      } finally {
        this.options.metrics?.renderContextsInUse.dec();
        await context.close().catch(() => undefined);
      }
    } finally {
      this.slots.release();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.launching?.catch(() => undefined);
    if (this.current) await this.retire(this.current);
  }

  /** The running browser, launched if there is none or it went away. */
  private async browser(): Promise<Running> {
    if (this.closed) throw new Error('the browser pool is closed');
    const current = this.current;
    if (current?.browser.isConnected()) return current;
    // Gone, and its 'disconnected' not handled yet: it is forgotten here all the same.
    if (current) this.gone(current);
    // One launch for all the jobs that find no browser at once.
    this.launching ??= this.launch().finally(() => {
      this.launching = undefined;
    });
    return this.launching;
  }

  private async launch(): Promise<Running> {
    const { config, logger } = this.options;
    const sink = await deadEndProxy();
    const { port } = sink.address() as net.AddressInfo;
    // A switch Chromium ignores, to tell its process among this one's children (memory watch).
    const marker = `--sev-render-browser=${randomUUID()}`;
    let browser: Browser;
    try {
      // Loaded on the first render: playwright-core takes over half a second to import, which every
      // API and worker process would otherwise pay at start whether it ever renders or not.
      const { chromium } = await import('playwright-core');
      browser = await chromium.launch({
        executablePath: config.chromiumPath,
        headless: true,
        chromiumSandbox: false,
        timeout: LAUNCH_TIMEOUT_MS,
        // The service shuts the browser down itself, after its jobs.
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
        args: [
          ...CHROMIUM_FLAGS,
          `--js-flags=--max-old-space-size=${config.pageHeapMb}`,
          `--proxy-server=http://127.0.0.1:${port}`,
          // Without it Chromium would reach loopback directly, around the proxy.
          '--proxy-bypass-list=<-loopback>',
          '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
          marker,
        ],
      });
    } catch (error) {
      sink.close();
      const failure = new BrowserLaunchError(config.chromiumPath, error);
      this.launchError = failure.message;
      throw failure;
    }
    this.launchError = null;
    const pid = await childWith(marker);
    const running: Running = { browser, pid, sink, watch: undefined, retired: false };
    if (config.browserMaxMb > 0 && pid !== undefined) {
      running.watch = setInterval(() => void this.checkMemory(running, pid), MEMORY_CHECK_MS);
      running.watch.unref();
    }
    browser.on('disconnected', () => this.gone(running));
    if (this.closed) {
      await this.retire(running);
      throw new Error('the browser pool is closed');
    }
    this.current = running;
    logger?.info({ pid, path: config.chromiumPath }, 'browser launched for rendering');
    return running;
  }

  /** A browser that went away without being asked (killed, crashed): forgotten; the next job launches another. */
  private gone(running: Running): void {
    if (running.retired) return;
    this.restarts++;
    this.options.metrics?.renderBrowserRestarts.inc({ cause: 'crash' });
    this.options.logger?.warn({ pid: running.pid }, 'the rendering browser went away; another is launched for the next page');
    void this.retire(running);
  }

  private async retire(running: Running): Promise<void> {
    running.retired = true;
    if (this.current === running) this.current = undefined;
    await stop(running);
  }

  private async checkMemory(running: Running, pid: number): Promise<void> {
    const limit = this.options.config.browserMaxMb;
    const used = await treeMemoryMb(pid);
    if (used === undefined || used <= limit || running.retired) return;
    this.restarts++;
    this.options.metrics?.renderBrowserRestarts.inc({ cause: 'memory' });
    this.options.logger?.warn({ pid, used_mb: Math.round(used), limit_mb: limit }, 'the rendering browser holds more memory than RENDER_BROWSER_MAX_MB; restarting it');
    await this.retire(running);
  }
}

async function stop(running: Running): Promise<void> {
  if (running.watch) clearInterval(running.watch);
  await running.browser.close().catch(() => undefined);
  await new Promise<void>((resolve) => running.sink.close(() => resolve()));
}

/** A local "proxy" that closes every connection: where the browser's traffic ends if it ever bypasses interception. */
async function deadEndProxy(): Promise<net.Server> {
  const server = net.createServer((socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  server.unref();
  return server;
}

/** A counting semaphore whose waiters can give up (their signal aborts) without taking a slot. */
class Slots {
  private free: number;
  private readonly waiting: Array<{ grant: () => void }> = [];

  constructor(private readonly size: number) {
    this.free = size;
  }

  inUse(): number {
    return this.size - this.free;
  }

  waiters(): number {
    return this.waiting.length;
  }

  acquire(signal: AbortSignal): Promise<void> {
    signal.throwIfAborted();
    if (this.free > 0) {
      this.free--;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const waiter = {
        grant: () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = () => {
        const index = this.waiting.indexOf(waiter);
        if (index >= 0) this.waiting.splice(index, 1);
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }

  release(): void {
    const next = this.waiting.shift();
    if (next) next.grant();
    else this.free++;
  }
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n').find((line) => line.trim() !== '')?.trim() ?? 'unknown error';
}

/** The child of this process whose command line holds `marker`. */
async function childWith(marker: string): Promise<number | undefined> {
  for (const pid of (await descendants(process.pid)) ?? []) {
    const cmdline = await fs.readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.split('\0').includes(marker)) return pid;
  }
  return undefined;
}
