/**
 * Runs a crawl: the body of a `crawl` job. The driver takes the crawl's lease (one driver per
 * crawl at a time, fenced by the lease epoch), seeds the frontier (seeds, then sitemaps), and
 * works through it with one lane per host: a lane claims its host's next pages, fetches them in
 * the host's politeness slot, adds the links it finds and records the outcome, until its host
 * has nothing left. The crawl is complete when no page is waiting and no lane runs.
 *
 * Everything lives in MySQL, so a driver can stop anywhere: a successor requeues the pages it
 * had claimed (each fetch started counts as an attempt, so a page that kills its worker is
 * given up after MAX_PAGE_ATTEMPTS) and carries on.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Mode } from '../mode.js';
import type { Logger } from '../log/logger.js';
import type { Database } from '../storage/schema.js';
import { checkRobots, crawlDelay, type RobotsOptions } from '../fetch/robots.js';
import { FetchError } from '../fetch/fetch-errors.js';
import { createFetchSignal } from '../fetch/fetch-signal.js';
import { parseHttpUrl } from '../fetch/guarded-request.js';
import { fetchText } from './fetch-text.js';
import type { CrawlRequest } from './crawl-options.js';
import { CrawlScope, type Candidate } from './crawl-scope.js';
import { sha256Hex } from '../storage/hash.js';
import { fetchForCrawl, PAGE_TIMEOUT_MS, processPage, type PageDeps } from './crawl-page.js';
import type { FetchedPage } from '../fetch/fetch-page.js';
import { DEFAULT_CRAWL_DELAY_MS, sleep, type HostGate } from './host-gate.js';
import { sitemapUrls } from './sitemaps.js';
import { crawlIndexWriter } from './index-writer.js';
import type { DocumentIndex } from '../index/types.js';
import * as repo from './crawl.repository.js';

/** How long a driver's lease lasts without renewal: a dead driver is replaced this long after it stopped. */
const LEASE_MS = 10_000;
const RENEW_MS = 2_500;
/** Hosts one driver fetches from at once (each still one request at a time). */
const LANES = 8;
/** Attempts at one page (counted as its fetch starts): a page whose worker stopped this often while processing it is given up. */
const MAX_PAGE_ATTEMPTS = 3;
/** Pages of one host being processed (cleaned, indexed) at once while the next is fetched. */
const PIPELINE = 4;
/** Pages a lane claims at once. */
const CLAIM_BATCH = 8;
/** Back-off after an unexpected failure of a page's step, doubling with each in a row. */
const FIRST_BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 30_000;
/** How often the driver looks for hosts that got work while its lanes run. */
const RESCAN_MS = 1000;
/**
 * At a shutdown, how long the pages in hand may take to finish before their work is cut off.
 * A page whose request was cut off is requested again by the next driver; finishing it instead
 * spares the site that second request (a page takes milliseconds to a few seconds).
 */
const SHUTDOWN_DRAIN_MS = 3000;

export interface DriverDeps extends Omit<PageDeps, 'index'> {
  index: DocumentIndex;
  db: Kysely<Database>;
  gate: HostGate;
  logger: Logger;
}

/** Why a driver stopped before its crawl was done. */
class Stopped {
  constructor(readonly why: 'shutdown' | 'lease-lost' | 'deadline' | 'error') {}
}

export type DriveResult = 'completed' | 'not-held' | 'handed-back' | 'lease-lost';

/**
 * @param epoch the lease epoch the job was created for; a job of an older epoch does nothing.
 * @param shutdown aborted when the worker process stops: no page is started any more, the pages
 *   in hand get SHUTDOWN_DRAIN_MS to finish, and the crawl is handed back, not ended.
 */
export async function driveCrawl(deps: DriverDeps, crawlId: string, epoch: number, shutdown: AbortSignal): Promise<DriveResult> {
  const owner = randomUUID();
  if (!(await repo.acquireLease(deps.db, crawlId, epoch, owner, LEASE_MS))) return 'not-held';
  const crawl = (await repo.findCrawl(deps.db, crawlId))!;
  const request = JSON.parse(crawl.options) as CrawlRequest;
  const log = deps.logger.child({ crawl_id: crawlId, epoch });

  const stop = new AbortController();
  const halt = (why: Stopped['why']) => {
    if (!stop.signal.aborted) stop.abort(new Stopped(why));
  };
  const draining = new AbortController();
  let drainLimit: NodeJS.Timeout | undefined;
  const onShutdown = () => {
    draining.abort();
    drainLimit = setTimeout(() => halt('shutdown'), SHUTDOWN_DRAIN_MS);
  };
  shutdown.addEventListener('abort', onShutdown, { once: true });
  if (shutdown.aborted) halt('shutdown');
  const renewal = setInterval(() => {
    repo.renewLease(deps.db, crawlId, owner, LEASE_MS)
      .then((held) => held || halt('lease-lost'))
      .catch((error: unknown) => log.warn({ err: error }, 'crawl lease renewal failed'));
  }, RENEW_MS);
  const remainingMs = crawl.started_at!.getTime() + request.max_duration * 1000 - Date.now();
  const deadline = setTimeout(() => halt('deadline'), Math.max(0, remainingMs));

  let failure: unknown;
  const fail = (error: unknown) => {
    if (stop.signal.aborted) return;
    failure = error;
    halt('error');
  };
  const run = new CrawlRun(deps, crawlId, owner, request, crawl.mode === 'test' ? 'test' : 'live', stop.signal, draining.signal, {
    leaseLost: () => halt('lease-lost'),
    fail,
  });
  try {
    await repo.requeueStaleClaims(deps.db, crawlId, owner);
    if (!crawl.seeded) {
      await run.seed();
      await repo.markSeeded(deps.db, crawlId, owner);
    }
    await run.lanes();
    // Lanes that stopped for a shutdown left the crawl unfinished.
    if (draining.signal.aborted) halt('shutdown');
  } catch (error) {
    fail(error);
  } finally {
    clearInterval(renewal);
    clearTimeout(deadline);
    clearTimeout(drainLimit);
    shutdown.removeEventListener('abort', onShutdown);
  }

  const why = stop.signal.aborted ? (stop.signal.reason as Stopped).why : 'done';
  switch (why) {
    case 'done':
    case 'deadline':
      await repo.releaseClaims(deps.db, crawlId, owner);
      await repo.finishCrawl(deps.db, crawlId, owner, why === 'deadline' ? 'max_duration' : null);
      log.info({ stopped_reason: why === 'deadline' ? 'max_duration' : null }, 'crawl completed');
      return 'completed';
    case 'lease-lost':
      // Cancelled (or taken over): pages this driver had claimed are not in progress any more.
      await repo.releaseClaims(deps.db, crawlId, owner);
      return 'lease-lost';
    default:
      // Shutdown or an unexpected error: the reconciler hands the crawl to another driver.
      await repo.releaseLease(deps.db, crawlId, owner, why === 'shutdown' ? 'handover' : 'failure');
      if (failure !== undefined) throw failure;
      return 'handed-back';
  }
}

/** One driver's work on one crawl. */
class CrawlRun {
  private readonly scope: CrawlScope;
  /** Unexpected failures since the last step that worked (guard). */
  private failuresInARow = 0;
  private readonly robots: RobotsOptions;

  private readonly deps: Omit<DriverDeps, 'index'> & PageDeps;

  constructor(
    deps: DriverDeps,
    private readonly crawlId: string,
    private readonly owner: string,
    private readonly request: CrawlRequest,
    /** The index the pages go to: the mode of the key that started the crawl. */
    private readonly mode: Mode,
    private readonly signal: AbortSignal,
    /** Aborted at a shutdown: no page is started any more; those in hand finish (until `signal` cuts them off). */
    private readonly draining: AbortSignal,
    /** How the run stops its driver: the lease is gone, or something unexpected broke. */
    private readonly stopWith: { leaseLost: () => void; fail: (error: unknown) => void },
  ) {
    this.scope = new CrawlScope(request);
    this.deps = { ...deps, index: crawlIndexWriter(deps.index, mode) };
    const fetch = deps.config.fetch;
    this.robots = { userAgent: fetch.userAgent, allowedCidrs: fetch.allowedCidrs, perHostConcurrency: fetch.perHostConcurrency, signal };
  }

  /** The seeds at depth 0, then (with sitemaps, when links are followed at all) every seed site's sitemap URLs at depth 1. */
  async seed(): Promise<void> {
    await this.admit(this.request.urls.map((url) => this.scope.seed(url)));
    if (!this.request.sitemaps || this.request.max_depth < 1) return;
    for (const origin of new Set(this.request.urls.map((url) => new URL(url).origin))) {
      const urls = await sitemapUrls(origin, (url) => this.fetchText(url), this.request.max_pages, (url) => this.scope.inDomain(url));
      await this.admit(urls.map((url) => this.scope.admit(url, 1)));
    }
  }

  /** Runs a lane per host with waiting pages (up to LANES) until none is waiting and no lane runs. */
  async lanes(): Promise<void> {
    const running = new Map<string, Promise<void>>();
    try {
      for (;;) {
        this.signal.throwIfAborted();
        if (this.draining.aborted) return;
        if (running.size < LANES) {
          for (const host of await repo.queuedHosts(this.deps.db, this.crawlId, LANES + running.size)) {
            if (running.has(host) || running.size >= LANES) continue;
            // A lane that breaks stops the others (through the signal) and the driver.
            running.set(host, this.lane(host).catch(this.stopWith.fail).finally(() => running.delete(host)));
          }
        }
        if (running.size === 0) return;
        await Promise.race([...running.values(), sleep(RESCAN_MS, this.signal).catch(() => undefined)]);
      }
    } finally {
      await Promise.allSettled(running.values());
    }
  }

  /**
   * Works through one host's pages. Fetches follow one another at the host's pace; each fetched
   * page is cleaned, indexed and mined for links while the next one is fetched (up to PIPELINE
   * pages at once), so politeness, not processing, sets the speed.
   */
  private async lane(host: string): Promise<void> {
    const processing = new Set<Promise<void>>();
    const claimed: repo.PageRow[] = [];
    try {
      for (;;) {
        this.signal.throwIfAborted();
        if (this.draining.aborted) return;
        if (claimed.length === 0) claimed.push(...await repo.claimPages(this.deps.db, this.crawlId, host, this.owner, CLAIM_BATCH));
        const page = claimed.shift();
        if (!page) {
          if (processing.size === 0) return;
          // A page still being processed may yet add links to this host.
          await Promise.race(processing);
          continue;
        }
        const fetched = await this.guard(page, () => this.fetch(host, page));
        if (!fetched) continue;
        // Never rejects: guard deals with a page's own failures, and the loop notices a stop through the signal.
        const tracked: Promise<void> = this.guard(page, () => this.complete(page, fetched))
          .then(() => undefined, () => undefined)
          .finally(() => processing.delete(tracked));
        processing.add(tracked);
        if (processing.size >= PIPELINE) await Promise.race(processing);
      }
    } finally {
      await Promise.allSettled(processing);
    }
  }

  /** The page fetched politely, or its outcome when it cannot be (then already recorded). */
  private async fetch(host: string, page: repo.PageRow): Promise<FetchedPage | undefined> {
    if (page.attempts >= MAX_PAGE_ATTEMPTS) {
      await repo.finishPage(this.deps.db, page.id, this.owner, {
        state: 'failed', errorCode: 'EXTRACTION_FAILED', reason: `gave up after ${MAX_PAGE_ATTEMPTS} attempts: each time, the worker processing it stopped or failed`,
      });
      return undefined;
    }
    const delayMs = await this.delayFor(page.url);
    const fetched = await fetchForCrawl(this.deps, {
      signal: this.signal,
      politely: (fetch) => this.deps.gate.run(host, delayMs, this.signal, async () => {
        await this.stillHeld();
        await repo.countAttempt(this.deps.db, page.id, this.owner);
        return fetch();
      }),
    }, page.url);
    if (!('outcome' in fetched)) return fetched;
    await repo.finishPage(this.deps.db, page.id, this.owner, fetched.outcome);
    return undefined;
  }

  /** Cleaning and indexing, then the links into the frontier before the page is marked done (so a crash loses none). */
  private async complete(page: repo.PageRow, fetched: FetchedPage): Promise<void> {
    const crawled = await processPage(this.deps, { mode: this.mode, redirectTarget: (finalUrl) => this.redirectTarget(finalUrl) }, page.url, fetched);
    if (crawled.links.length > 0) await this.admit(crawled.links.map((link) => this.scope.admit(link, page.depth + 1)));
    await repo.finishPage(this.deps.db, page.id, this.owner, crawled.outcome);
  }

  /**
   * Runs one step of a claimed page. When the crawl stops, the failure propagates; anything else
   * (a database, Redis or pool hiccup) puts the page back in the frontier. Such failures in a
   * row back off exponentially (up to MAX_BACKOFF_MS): one that strikes before the attempt is
   * counted would otherwise have the lane claim the same page again at once, in a tight loop.
   */
  private async guard<T>(page: repo.PageRow, step: () => Promise<T>): Promise<T | undefined> {
    try {
      const result = await step();
      this.failuresInARow = 0;
      return result;
    } catch (error) {
      if (this.signal.aborted) throw error;
      this.deps.logger.warn({ err: error, crawl_id: this.crawlId, url: page.url }, 'crawl page failed unexpectedly; requeued');
      await repo.returnPage(this.deps.db, page.id, this.owner);
      await sleep(Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** this.failuresInARow++), this.signal);
      return undefined;
    }
  }

  /**
   * Checked right before each request rather than only at the lease's renewal, so that a
   * cancellation stops the crawl's requests at once.
   */
  private async stillHeld(): Promise<void> {
    if (!(await repo.holdsLease(this.deps.db, this.crawlId, this.owner))) this.stopWith.leaseLost();
    this.signal.throwIfAborted();
  }

  /** Admits candidates, split by what robots.txt says of each (its answer is cached per origin). */
  private async admit(candidates: ReadonlyArray<Candidate | undefined>): Promise<void> {
    const allowed: Candidate[] = [];
    const refused: Candidate[] = [];
    const seen = new Set<string>();
    for (const candidate of candidates) {
      if (!candidate || seen.has(candidate.urlHash)) continue;
      seen.add(candidate.urlHash);
      (await this.robotsRefuse(candidate.url) ? refused : allowed).push(candidate);
    }
    await repo.admit(this.deps.db, this.crawlId, allowed, refused);
  }

  /**
   * Whether robots.txt disallows the URL. A site whose robots.txt cannot be had at all is not
   * "disallowed": its pages are queued, and their fetch fails with the reason (URL_UNREACHABLE).
   */
  private async robotsRefuse(url: string): Promise<boolean> {
    try {
      await checkRobots(new URL(url), url, this.robots);
      return false;
    } catch (error) {
      if (error instanceof FetchError) return error.kind === 'disallowed';
      throw error;
    }
  }

  private async redirectTarget(finalUrl: string): Promise<'crawl' | 'out-of-scope' | 'known'> {
    if (!this.scope.inDomain(new URL(finalUrl))) return 'out-of-scope';
    return (await repo.hasUrl(this.deps.db, this.crawlId, sha256Hex(finalUrl))) ? 'known' : 'crawl';
  }

  /** The host's Crawl-delay, or the default when robots.txt sets none. */
  private async delayFor(url: string): Promise<number> {
    const seconds = await crawlDelay(url, this.robots);
    return seconds === undefined ? DEFAULT_CRAWL_DELAY_MS : seconds * 1000;
  }

  /** robots.txt or a sitemap, politely and where robots.txt allows; undefined when missing, refused or unreadable. */
  private async fetchText(url: string): Promise<string | undefined> {
    const target = parseHttpUrl(url);
    if (!target) return undefined;
    const fetchSignal = createFetchSignal(PAGE_TIMEOUT_MS, this.signal);
    try {
      const delayMs = await this.delayFor(url);
      return await this.deps.gate.run(target.host, delayMs, this.signal, () => fetchText(this.deps, url, {
        signal: fetchSignal.signal,
        beforeHop: (hop) => checkRobots(hop, url, this.robots),
      }));
    } catch (error) {
      if (this.signal.aborted) throw error;
      this.deps.logger.info({ err: error, crawl_id: this.crawlId, url }, 'sitemap discovery: not readable');
      return undefined;
    } finally {
      fetchSignal.dispose();
    }
  }
}
