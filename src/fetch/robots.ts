/**
 * robots.txt (RFC 9309): fetched once per origin through the same guarded request as pages
 * (SSRF rules, redirects, per-host slots), kept for a while, and matched against the product
 * token of our User-Agent.
 *
 * What the robots.txt response means (RFC 9309 section 2.3.1):
 * - 2xx: its rules apply. Only the first 512 KiB are read (the RFC asks for at least 500 KiB).
 * - 4xx: there are no rules; everything is allowed. Except 429: a request to slow down is not
 *   permission to crawl, so it counts like a 5xx (as Google treats it).
 * - 5xx: the site cannot say what is allowed, so nothing is.
 * - no response (DNS, connection, time-out, refused address): nothing is allowed either; the page
 *   fetch fails as unreachable, since the site is out of reach for it too.
 * Redirects are followed (up to 5, across hosts); the rules found apply to the origin asked about.
 * /robots.txt itself is always allowed (section 2.2.2).
 */
import { TextDecoder } from 'node:util';
import robotsParserModule from 'robots-parser';
import { ExpiringCache } from './expiring-cache.js';
import { blockedByRobots, FetchError, toFetchError, unreachable } from './fetch-errors.js';
import { createFetchSignal, raceSignal } from './fetch-signal.js';
import { guardedRequest, type HopResponse } from './guarded-request.js';
import { DEFAULT_PER_HOST_CONCURRENCY } from './host-limit.js';
import { discardBody, readBodyPrefix } from './read-body.js';

export interface RobotsOptions {
  /** Sent with the robots.txt request; its product token selects the group of rules. */
  readonly userAgent: string;
  /** Non-public ranges the robots.txt request may nevertheless reach, as for pages. */
  readonly allowedCidrs: readonly string[];
  readonly perHostConcurrency?: number;
  /**
   * Stops waiting and rejects with the signal's reason. The download itself is shared by every
   * caller asking about the origin, so it goes on (bounded by its own time-out) and is cached.
   */
  readonly signal?: AbortSignal;
}

// robots-parser is CommonJS (module.exports = the function) but its types declare an ES default
// export; under NodeNext the default import is module.exports, i.e. the function itself.
const robotsParser = robotsParserModule as unknown as typeof robotsParserModule.default;
type Robot = ReturnType<typeof robotsParser>;

type RobotsPolicy =
  | { readonly kind: 'rules'; readonly robot: Robot }
  | { readonly kind: 'allow-all' }
  | { readonly kind: 'disallow-all' }
  | { readonly kind: 'unreachable'; readonly reason: string };

interface Loaded {
  readonly policy: RobotsPolicy;
  /** Size of the robots.txt kept in memory, the policy's weight in the cache. */
  readonly bytes: number;
}

const MAX_ROBOTS_BYTES = 512 * 1024;
const ROBOTS_TIMEOUT_MS = 5000;
const ROBOTS_MAX_REDIRECTS = 5;
const ACCEPT = 'text/plain,*/*;q=0.5';
// The RFC allows caching for up to 24 h; an hour keeps edits to robots.txt visible soon.
const ANSWER_TTL_MS = 60 * 60 * 1000;
// 5xx and no response: retried soon, but not by every fetch of a site that is down.
const FAILURE_TTL_MS = 60 * 1000;
const MAX_ORIGINS = 1000;
// Weight in bytes of robots.txt; an entry without a body still costs about this much.
const MAX_CACHED_BYTES = 32 * 1024 * 1024;
const MIN_ENTRY_BYTES = 1024;

const cache = new ExpiringCache<RobotsPolicy>(MAX_ORIGINS, MAX_CACHED_BYTES);
// Fetches under way, so that simultaneous requests for one origin share one download.
const loading = new Map<string, Promise<RobotsPolicy>>();

/** Whether robots.txt lets our User-Agent fetch the URL; false as well when robots.txt cannot be had. */
export async function robotsAllows(url: string | URL, options: RobotsOptions): Promise<boolean> {
  const target = new URL(url);
  return allows(await policyFor(target, options), target, options.userAgent);
}

/** Crawl-delays above this are taken as this: a site asking for a day between requests would park a crawl until its time runs out. */
export const MAX_CRAWL_DELAY_S = 60;

/**
 * The Crawl-delay (seconds) of the group that applies to our User-Agent, at most
 * MAX_CRAWL_DELAY_S; undefined when none is set or the value is no number ("10s" parses as NaN).
 */
export async function crawlDelay(url: string | URL, options: RobotsOptions): Promise<number | undefined> {
  const policy = await policyFor(new URL(url), options);
  const seconds = policy.kind === 'rules' ? policy.robot.getCrawlDelay(productToken(options.userAgent)) : undefined;
  return seconds !== undefined && Number.isFinite(seconds) && seconds >= 0 ? Math.min(seconds, MAX_CRAWL_DELAY_S) : undefined;
}

/**
 * For fetchers: passes when the URL may be fetched.
 * @param requestedUrl the URL the client asked for, named in the error.
 * @throws FetchError disallowed ("blocked by robots.txt"); unreachable ("robots.txt: <reason>")
 *   when no robots.txt response came; the signal's reason when it aborts.
 */
export async function checkRobots(target: URL, requestedUrl: string, options: RobotsOptions): Promise<void> {
  const policy = await policyFor(target, options);
  if (policy.kind === 'unreachable' && !isRobotsFile(target)) throw unreachable(requestedUrl, `robots.txt: ${policy.reason}`);
  if (!allows(policy, target, options.userAgent)) throw blockedByRobots(requestedUrl);
}

/**
 * The product token robots.txt groups are matched against (RFC 9309 section 2.2.1): the leading
 * name of the User-Agent ("sev-api" of "sev-api/0.1 (+https://…)"), or for a browser-style
 * "Mozilla/5.0 (compatible; Name/1.0; …)" the name after "compatible;", as crawlers do.
 */
export function productToken(userAgent: string): string {
  const compatible = /^Mozilla\/[^(]*\(compatible;\s*([\w-]+)/i.exec(userAgent)?.[1];
  return compatible ?? /^\s*([\w-]+)/.exec(userAgent)?.[1] ?? '*';
}

function allows(policy: RobotsPolicy, target: URL, userAgent: string): boolean {
  if (isRobotsFile(target)) return true;
  switch (policy.kind) {
    case 'rules':
      // undefined only for a URL of another origin, which policyFor never pairs with these rules.
      return policy.robot.isAllowed(target.href, productToken(userAgent)) ?? true;
    case 'allow-all':
      return true;
    default:
      return false;
  }
}

function isRobotsFile(target: URL): boolean {
  return target.pathname === '/robots.txt';
}

function policyFor(target: URL, options: RobotsOptions): Promise<RobotsPolicy> {
  // The allow-list decides whether the download may happen at all, so it is part of the key.
  const key = `${options.allowedCidrs.join(',')} ${target.origin}`;
  const cached = cache.get(key, Date.now());
  if (cached) return Promise.resolve(cached);
  let pending = loading.get(key);
  if (!pending) {
    pending = loadPolicy(target.origin, options)
      .then(({ policy, bytes }) => {
        const ttl = policy.kind === 'rules' || policy.kind === 'allow-all' ? ANSWER_TTL_MS : FAILURE_TTL_MS;
        cache.set(key, policy, Date.now() + ttl, Math.max(bytes, MIN_ENTRY_BYTES));
        return policy;
      })
      .finally(() => loading.delete(key));
    loading.set(key, pending);
  }
  return options.signal ? raceSignal(pending, options.signal) : pending;
}

/** Never rejects for the site's failures: those are policies too. */
async function loadPolicy(origin: string, options: RobotsOptions): Promise<Loaded> {
  const robotsUrl = `${origin}/robots.txt`;
  const fetchSignal = createFetchSignal(ROBOTS_TIMEOUT_MS);
  const requestOptions = {
    userAgent: options.userAgent,
    accept: ACCEPT,
    maxRedirects: ROBOTS_MAX_REDIRECTS,
    allowedCidrs: options.allowedCidrs,
    perHostConcurrency: options.perHostConcurrency ?? DEFAULT_PER_HOST_CONCURRENCY,
    signal: fetchSignal.signal,
  };
  try {
    const { value } = await guardedRequest(new URL(robotsUrl), robotsUrl, requestOptions, (response) =>
      readPolicy(response, robotsUrl, fetchSignal.signal),
    );
    return value;
  } catch (error) {
    const failure = toFetchError(error, { url: robotsUrl, timeoutMs: ROBOTS_TIMEOUT_MS, timedOut: fetchSignal.timedOut, callerSignal: undefined });
    if (!(failure instanceof FetchError)) throw failure;
    return { policy: { kind: 'unreachable', reason: failure.reason }, bytes: 0 };
  } finally {
    fetchSignal.dispose();
  }
}

async function readPolicy(response: HopResponse, robotsUrl: string, signal: AbortSignal): Promise<Loaded> {
  const { status } = response;
  if (status >= 200 && status < 300) {
    const body = await readBodyPrefix(response.body, response.headers['content-encoding'], MAX_ROBOTS_BYTES, signal);
    // RFC 9309 files are UTF-8; the decoder also drops a byte-order mark.
    const robot = robotsParser(robotsUrl, new TextDecoder().decode(body));
    return { policy: { kind: 'rules', robot }, bytes: body.length };
  }
  discardBody(response.body);
  if (status >= 400 && status < 500 && status !== 429) return { policy: { kind: 'allow-all' }, bytes: 0 };
  return { policy: { kind: 'disallow-all' }, bytes: 0 };
}
