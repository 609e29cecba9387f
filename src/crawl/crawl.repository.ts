/**
 * SQL of crawls and their frontier. Leases are compared with the database's clock
 * (UTC_TIMESTAMP), so worker processes on different hosts agree on when one has lapsed.
 */
import { sql, type Kysely, type Selectable } from 'kysely';
import type { CrawlPagesTable, CrawlsTable, Database } from '../storage/schema.js';
import type { Candidate } from './crawl-scope.js';
import { withDeadlockRetry } from '../storage/deadlock-retry.js';

type Db = Kysely<Database>;
export type CrawlRow = Selectable<CrawlsTable>;
export type PageRow = Selectable<CrawlPagesTable>;

export type CrawlState = 'queued' | 'running' | 'completed' | 'cancelled' | 'failed';
/** queued → fetching → indexed | fetched (nothing to index) | failed; robots: refused by robots.txt, never requested. */
export type PageState = 'queued' | 'fetching' | 'indexed' | 'fetched' | 'failed' | 'robots';

const UNFINISHED: readonly CrawlState[] = ['queued', 'running'];

const now = sql<Date>`UTC_TIMESTAMP(3)`;
const inMs = (ms: number) => sql<Date>`UTC_TIMESTAMP(3) + INTERVAL ${Math.round(ms * 1000)} MICROSECOND`;

export interface NewCrawl {
  id: string;
  accountId: string | null;
  principalId: string | null;
  mode: string;
  requestId: string;
  options: string;
  maxPages: number;
  createdAt: Date;
}

/**
 * Stores a new crawl unless its account already has `maxUnfinished` crawls queued or running
 * in the crawl's mode; then returns how many it has and stores nothing. Starts of one account
 * take turns on its row, so concurrent starts cannot both take the last place. The operator
 * (no account) is not limited.
 */
export async function insertCrawlWithin(db: Db, crawl: NewCrawl, maxUnfinished: number): Promise<{ inserted: true } | { inserted: false; unfinished: number }> {
  if (crawl.accountId === null) {
    await insertCrawl(db, crawl);
    return { inserted: true };
  }
  const accountId = crawl.accountId;
  return db.transaction().execute(async (trx) => {
    await trx.selectFrom('accounts').select('id').where('id', '=', accountId).forUpdate().executeTakeFirst();
    const { unfinished } = await trx.selectFrom('crawls').select((eb) => eb.fn.countAll<number>().as('unfinished'))
      .where('account_id', '=', accountId).where('mode', '=', crawl.mode).where('state', 'in', UNFINISHED)
      .executeTakeFirstOrThrow();
    if (Number(unfinished) >= maxUnfinished) return { inserted: false, unfinished: Number(unfinished) };
    await insertCrawl(trx, crawl);
    return { inserted: true };
  });
}

export async function insertCrawl(db: Db, crawl: NewCrawl): Promise<void> {
  await db.insertInto('crawls').values({
    id: crawl.id,
    account_id: crawl.accountId,
    principal_id: crawl.principalId,
    mode: crawl.mode,
    request_id: crawl.requestId,
    state: 'queued',
    options: crawl.options,
    max_pages: crawl.maxPages,
    lease_owner: null,
    lease_until: null,
    stopped_reason: null,
    failure_code: null,
    failure_message: null,
    created_at: crawl.createdAt,
    started_at: null,
    finished_at: null,
    updated_at: crawl.createdAt,
  }).execute();
}

export async function findCrawl(db: Db, id: string): Promise<CrawlRow | undefined> {
  return db.selectFrom('crawls').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * Takes the crawl's lease for a driver of the given epoch, when nobody holds it; a queued crawl
 * starts running. False: finished, another driver holds it, or an older epoch.
 */
export async function acquireLease(db: Db, id: string, epoch: number, owner: string, leaseMs: number): Promise<boolean> {
  const result = await db.updateTable('crawls')
    .set({
      lease_owner: owner,
      lease_until: inMs(leaseMs),
      state: 'running',
      started_at: sql<Date>`COALESCE(started_at, UTC_TIMESTAMP(3))`,
      updated_at: now,
    })
    .where('id', '=', id)
    .where('lease_epoch', '=', epoch)
    .where('state', 'in', UNFINISHED)
    .where((eb) => eb.or([eb('lease_owner', 'is', null), eb('lease_until', '<', now)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Extends the lease; false when it was lost (taken over, cancelled or finished). */
export async function renewLease(db: Db, id: string, owner: string, leaseMs: number): Promise<boolean> {
  const result = await db.updateTable('crawls')
    .set({ lease_until: inMs(leaseMs) })
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .where('state', '=', 'running')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Whether owner still drives the crawl (it was not cancelled, failed or taken over). */
export async function holdsLease(db: Db, id: string, owner: string): Promise<boolean> {
  const row = await db.selectFrom('crawls').select('id')
    .where('id', '=', id).where('lease_owner', '=', owner).where('state', '=', 'running')
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Gives the crawl up (its driver failed unexpectedly, or its worker is shutting down): its
 * claimed pages return to the frontier, and the lease is free for the reconciler to give to
 * another. A graceful hand-over is counted, so that it does not count as a restart.
 */
export async function releaseLease(db: Db, id: string, owner: string, why: 'handover' | 'failure'): Promise<void> {
  await releaseClaims(db, id, owner);
  await db.updateTable('crawls')
    .set({ lease_owner: null, lease_until: null, ...(why === 'handover' ? { handbacks: sql`handbacks + 1` } : {}) })
    .where('id', '=', id).where('lease_owner', '=', owner)
    .execute();
}

/** The owner's claimed pages return to the frontier. */
export async function releaseClaims(db: Db, id: string, owner: string): Promise<void> {
  await db.updateTable('crawl_pages')
    .set({ state: 'queued', lease_owner: null })
    .where('crawl_id', '=', id).where('state', '=', 'fetching').where('lease_owner', '=', owner)
    .execute();
}

/** Pages claimed by an earlier driver (which lost its lease) go back to the frontier. */
export async function requeueStaleClaims(db: Db, id: string, owner: string): Promise<void> {
  await db.updateTable('crawl_pages')
    .set({ state: 'queued', lease_owner: null })
    .where('crawl_id', '=', id).where('state', '=', 'fetching')
    .where((eb) => eb.or([eb('lease_owner', 'is', null), eb('lease_owner', '<>', owner)]))
    .execute();
}

export async function markSeeded(db: Db, id: string, owner: string): Promise<void> {
  await db.updateTable('crawls').set({ seeded: 1 }).where('id', '=', id).where('lease_owner', '=', owner).execute();
}

/**
 * Adds URLs to the frontier, each once per crawl, within max_pages; URLs robots.txt refuses are
 * recorded once each (up to max_pages of them) so they are counted, never fetched. The crawl's
 * row is locked meanwhile, so the cap holds whoever adds.
 */
export async function admit(db: Db, crawlId: string, allowed: readonly Candidate[], refused: readonly Candidate[]): Promise<void> {
  if (allowed.length === 0 && refused.length === 0) return;
  await withDeadlockRetry(() => db.transaction().execute(async (trx) => {
    const crawl = await trx.selectFrom('crawls').select(['max_pages', 'pages_admitted', 'robots_skipped'])
      .where('id', '=', crawlId).forUpdate().executeTakeFirst();
    if (!crawl) return;
    const known = new Set((await trx.selectFrom('crawl_pages').select('url_hash')
      .where('crawl_id', '=', crawlId)
      .where('url_hash', 'in', [...allowed, ...refused].map((c) => c.urlHash))
      .execute()).map((r) => r.url_hash));
    const fresh = (list: readonly Candidate[]) => {
      const unseen: Candidate[] = [];
      for (const c of list) {
        if (known.has(c.urlHash)) continue;
        known.add(c.urlHash);
        unseen.push(c);
      }
      return unseen;
    };
    const newAllowed = fresh(allowed);
    const newRefused = fresh(refused);
    const pages = newAllowed.slice(0, Math.max(0, crawl.max_pages - crawl.pages_admitted));
    const robots = newRefused.slice(0, Math.max(0, crawl.max_pages - crawl.robots_skipped));
    const rows = [
      ...pages.map((c) => ({ ...pageRow(crawlId, c), state: 'queued' })),
      ...robots.map((c) => ({ ...pageRow(crawlId, c), state: 'robots', reason: 'disallowed by robots.txt', finished_at: new Date() })),
    ];
    if (rows.length > 0) await trx.insertInto('crawl_pages').values(rows).execute();
    await trx.updateTable('crawls').set({
      pages_admitted: crawl.pages_admitted + pages.length,
      robots_skipped: crawl.robots_skipped + robots.length,
      ...(pages.length < newAllowed.length ? { limit_reached: 1 } : {}),
      updated_at: now,
    }).where('id', '=', crawlId).execute();
  }));
}

function pageRow(crawlId: string, c: Candidate) {
  return { crawl_id: crawlId, url: c.url, url_hash: c.urlHash, host: c.host, depth: c.depth, lease_owner: null };
}

/** Hosts with pages waiting, at most limit. */
export async function queuedHosts(db: Db, crawlId: string, limit: number): Promise<string[]> {
  const rows = await db.selectFrom('crawl_pages').select('host').distinct()
    .where('crawl_id', '=', crawlId).where('state', '=', 'queued').limit(limit).execute();
  return rows.map((r) => r.host);
}

/**
 * The host's next pages, shallowest first, now claimed by owner. Several at a time: a claim
 * costs a few statements, and the host's pages are only ever claimed by the one lane of the
 * driver holding the crawl.
 */
export async function claimPages(db: Db, crawlId: string, host: string, owner: string, limit: number): Promise<PageRow[]> {
  const next = await db.selectFrom('crawl_pages').selectAll()
    .where('crawl_id', '=', crawlId).where('state', '=', 'queued').where('host', '=', host)
    .orderBy('depth').orderBy('id').limit(limit).execute();
  if (next.length === 0) return [];
  await db.updateTable('crawl_pages')
    .set({ state: 'fetching', lease_owner: owner })
    .where('id', 'in', next.map((p) => p.id)).where('state', '=', 'queued')
    .execute();
  // Only those this statement claimed (a driver taking over could have raced it for a few).
  const claimed = new Set((await db.selectFrom('crawl_pages').select('id')
    .where('id', 'in', next.map((p) => p.id)).where('state', '=', 'fetching').where('lease_owner', '=', owner)
    .execute()).map((r) => r.id));
  return next.filter((p) => claimed.has(p.id)).map((p) => ({ ...p, state: 'fetching', lease_owner: owner }));
}

/** Counts an attempt at a claimed page, as its fetch starts: what a worker dying meanwhile leaves behind. */
export async function countAttempt(db: Db, pageId: number, owner: string): Promise<void> {
  await db.updateTable('crawl_pages').set({ attempts: sql<number>`attempts + 1` })
    .where('id', '=', pageId).where('lease_owner', '=', owner).where('state', '=', 'fetching').execute();
}

export interface PageOutcome {
  state: Exclude<PageState, 'queued' | 'fetching'>;
  finalUrl?: string | null;
  httpStatus?: number | null;
  indexStatus?: string | null;
  errorCode?: string | null;
  reason?: string | null;
}

/** Records a page's outcome, unless its claim was taken from owner meanwhile. */
export async function finishPage(db: Db, pageId: number, owner: string, outcome: PageOutcome): Promise<void> {
  await db.updateTable('crawl_pages').set({
    state: outcome.state,
    lease_owner: null,
    final_url: outcome.finalUrl?.slice(0, 2048) ?? null,
    http_status: outcome.httpStatus ?? null,
    index_status: outcome.indexStatus ?? null,
    error_code: outcome.errorCode ?? null,
    reason: outcome.reason?.slice(0, 512) ?? null,
    finished_at: now,
  }).where('id', '=', pageId).where('lease_owner', '=', owner).where('state', '=', 'fetching').execute();
}

/** Puts a claimed page back in the frontier after an unexpected failure (its attempt was counted). */
export async function returnPage(db: Db, pageId: number, owner: string): Promise<void> {
  await db.updateTable('crawl_pages').set({ state: 'queued', lease_owner: null })
    .where('id', '=', pageId).where('lease_owner', '=', owner).where('state', '=', 'fetching').execute();
}

/** Whether the crawl has the URL in its frontier (queued, fetched or refused). */
export async function hasUrl(db: Db, crawlId: string, urlHash: string): Promise<boolean> {
  const row = await db.selectFrom('crawl_pages').select('id').where('crawl_id', '=', crawlId).where('url_hash', '=', urlHash).executeTakeFirst();
  return row !== undefined;
}

/** Ends a running crawl held by owner. */
export async function finishCrawl(db: Db, id: string, owner: string, stoppedReason: string | null): Promise<boolean> {
  const result = await db.updateTable('crawls')
    .set({ state: 'completed', stopped_reason: stoppedReason, finished_at: now, updated_at: now, lease_owner: null, lease_until: null })
    .where('id', '=', id).where('lease_owner', '=', owner).where('state', '=', 'running')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Ends an unfinished crawl as failed (whoever drives it notices at its next renewal). */
export async function failCrawl(db: Db, id: string, code: string, message: string): Promise<void> {
  await db.updateTable('crawls')
    .set({ state: 'failed', failure_code: code, failure_message: message.slice(0, 1024), finished_at: now, updated_at: now, lease_owner: null, lease_until: null })
    .where('id', '=', id).where('state', 'in', UNFINISHED)
    .execute();
}

/** Cancels an unfinished crawl; a finished one stays as it is. */
export async function cancelCrawl(db: Db, id: string): Promise<void> {
  await db.updateTable('crawls')
    .set({ state: 'cancelled', finished_at: now, updated_at: now, lease_owner: null, lease_until: null })
    .where('id', '=', id).where('state', 'in', UNFINISHED)
    .execute();
}

export async function pageCounts(db: Db, crawlId: string): Promise<Record<PageState, number>> {
  const rows = await db.selectFrom('crawl_pages').select(['state', (eb) => eb.fn.countAll<number>().as('n')])
    .where('crawl_id', '=', crawlId).groupBy('state').execute();
  const counts: Record<PageState, number> = { queued: 0, fetching: 0, indexed: 0, fetched: 0, failed: 0, robots: 0 };
  for (const row of rows) counts[row.state as PageState] = Number(row.n);
  return counts;
}

export async function failedPages(db: Db, crawlId: string, limit: number) {
  return db.selectFrom('crawl_pages').select(['url', 'error_code', 'reason', 'http_status'])
    .where('crawl_id', '=', crawlId).where('state', '=', 'failed')
    .orderBy('finished_at').orderBy('id').limit(limit).execute();
}

/** Pages the crawl indexed, in the order they finished, `limit` from `offset`. */
export async function indexedPages(db: Db, crawlId: string, offset: number, limit: number) {
  return db.selectFrom('crawl_pages').select(['url', 'final_url', 'http_status'])
    .where('crawl_id', '=', crawlId).where('state', '=', 'indexed')
    .orderBy('finished_at').orderBy('id').offset(offset).limit(limit).execute();
}

/** Unfinished crawls that nobody holds: never started, or whose driver stopped renewing. */
/** A page of them in id order, after `after`: a pass pages through all, so none waits behind the same first few. */
export async function unheldCrawls(db: Db, limit: number, after: string): Promise<Array<Pick<CrawlRow, 'id' | 'lease_epoch' | 'handbacks' | 'lease_owner' | 'request_id' | 'principal_id' | 'mode'>>> {
  return db.selectFrom('crawls').select(['id', 'lease_epoch', 'handbacks', 'lease_owner', 'request_id', 'principal_id', 'mode'])
    .where('state', 'in', UNFINISHED)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
    .where('id', '>', after).orderBy('id').limit(limit).execute();
}

/**
 * Deletes crawls that finished before `before`, with their frontier, a bounded amount per call
 * (pages in chunks, so no statement holds locks for long). Returns the crawls deleted.
 */
export async function purgeFinishedCrawls(db: Db, before: Date, crawls: number, pagesPerStatement: number): Promise<number> {
  const old = await db.selectFrom('crawls').select('id').where('finished_at', '<', before).limit(crawls).execute();
  for (const { id } of old) {
    for (;;) {
      const result = await db.deleteFrom('crawl_pages').where('crawl_id', '=', id).limit(pagesPerStatement).executeTakeFirst();
      if (Number(result.numDeletedRows) < pagesPerStatement) break;
    }
    await db.deleteFrom('crawls').where('id', '=', id).execute();
  }
  return old.length;
}

/** Moves an unheld crawl to the next epoch (fencing out drivers of the current one); false if someone else did or took it. */
export async function nextEpoch(db: Db, id: string, epoch: number): Promise<boolean> {
  const result = await db.updateTable('crawls')
    .set({ lease_epoch: epoch + 1, lease_owner: null, lease_until: null })
    .where('id', '=', id).where('lease_epoch', '=', epoch).where('state', 'in', UNFINISHED)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
