/**
 * A fetched HTML page run in the browser until its wait condition holds, and its DOM then
 * serialised for the same cleaning as a static page.
 *
 * The browser fetches nothing itself. The page's own document is the one already fetched
 * (redirects, robots.txt and the SSRF guard were the fetcher's), and every other request the
 * page makes (scripts, XHR and fetch, frames, a navigation elsewhere) is intercepted: refused
 * when its scheme is not http(s) or its kind is blocked (request-policy.ts), otherwise relayed
 * through the guarded fetcher (src/fetch/relay-request.ts), which refuses private addresses as
 * it does for pages. Each refusal is counted, for the response and the metrics.
 *
 * A render cut short because the browser died or the page's renderer crashed (killed, out of
 * its RENDER_PAGE_HEAP_MB) is tried once more in a new context, on a browser launched again if
 * need be; a second crash fails the page.
 */
import type { BrowserContext, Page, Request, Route } from 'playwright-core';
import type { LimitFunction } from 'p-limit';
import type { Config } from '../config.js';
import { ApiError } from '../errors/catalogue.js';
import type { FetchedPage } from '../fetch/fetch-page.js';
import { createFetchSignal } from '../fetch/fetch-signal.js';
import { RedirectRefused, refusedAddress, relayRequest } from '../fetch/relay-request.js';
import type { Metrics } from '../metrics/metrics.js';
import { BrowserGoneError, BrowserLaunchError, type BrowserPool } from './browser-pool.js';
import { BlockCount, judgeRequest } from './request-policy.js';

/** options.wait_for: the load event, network idle (no request for 500 ms), a CSS selector present, or milliseconds after load. */
export type WaitFor = 'load' | 'networkidle' | number | { selector: string };

export interface RenderDeps {
  config: Config;
  browsers: BrowserPool;
  /** The process-wide cap on outbound requests (FETCH_CONCURRENCY), which relayed requests share with page fetches. */
  fetchLimit: LimitFunction;
  metrics?: Pick<Metrics, 'renderBlockedRequests'> | undefined;
}

export interface RenderedPage {
  /** The DOM once the wait condition held, serialised. */
  html: string;
  /** Where the page is then (a script may have changed it). */
  finalUrl: string;
  /** Requests refused during the render that produced the DOM. */
  blocked: BlockCount;
  /** 2 when the first try was lost to a crash. */
  attempts: number;
}

/** The browser, or the page's renderer, went away mid-render. */
class BrowserLost extends Error {
  constructor(readonly what: 'browser' | 'renderer') {
    super(what === 'browser' ? 'the browser went away' : 'the page crashed its renderer');
  }
}

/** Why a page lost twice fails, as the client is told. */
const LOST_TWICE = {
  browser: 'the browser went away twice while rendering the page (killed, crashed, or restarted past RENDER_BROWSER_MAX_MB)',
  renderer: 'the page crashed its renderer twice (out of its RENDER_PAGE_HEAP_MB of heap, or a renderer fault)',
} as const;

/**
 * @param deadline epoch ms by which the page must have met its wait condition.
 * @throws ApiError EXTRACTION_FAILED when the wait condition does not hold by the deadline, the
 *   page crashes the browser twice or its DOM is larger than FETCH_MAX_MB; INVALID_PARAMETER for
 *   a selector the browser cannot parse. The signal's reason once it aborts.
 */
export async function renderPage(deps: RenderDeps, page: FetchedPage, waitFor: WaitFor, deadline: number, signal?: AbortSignal): Promise<RenderedPage> {
  for (let attempt = 1; ; attempt++) {
    try {
      return { ...(await renderOnce(deps, page, waitFor, deadline, signal)), attempts: attempt };
    } catch (error) {
      if (!(error instanceof BrowserLost)) throw error;
      if (attempt >= 2 || Date.now() >= deadline) throw failed(LOST_TWICE[error.what]);
    }
  }
}

async function renderOnce(deps: RenderDeps, page: FetchedPage, waitFor: WaitFor, deadline: number, callerSignal: AbortSignal | undefined): Promise<Omit<RenderedPage, 'attempts'>> {
  const timeoutMs = Math.max(1, deadline - Date.now());
  // Bounds the wait for a context. The render itself is bounded by the browser's own time-outs,
  // which leave the page's requests running until they fire: cutting those at the same instant
  // could let a page whose last request failed finish "loading" just in time.
  const waiting = createFetchSignal(timeoutMs, callerSignal);
  // Ends every relayed request once the render is over, or the caller gives up.
  const ended = new AbortController();
  const onCallerAbort = () => ended.abort(callerSignal?.reason);
  callerSignal?.addEventListener('abort', onCallerAbort, { once: true });
  const blocked = new BlockCount((reason) => deps.metrics?.renderBlockedRequests.inc({ reason }));
  let leased = false;
  try {
    return await deps.browsers.withContext(waiting.signal, async ({ context, browser }) => {
      leased = true;
      let crashed = false;
      let gone = false;
      const onCrash = () => {
        crashed = true;
      };
      const onGone = () => {
        gone = true;
      };
      browser.once('disconnected', onGone);
      try {
        let documentServed = false;
        await context.route('**/*', async (route, request) => {
          if (!documentServed && isDocumentOf(request, page)) {
            documentServed = true;
            await route.fulfill({ status: page.status, headers: documentHeaders(page), body: page.body }).catch(() => undefined);
            return;
          }
          await relay(deps, route, request, blocked, ended.signal, context);
        });
        const tab = await context.newPage();
        tab.once('crash', onCrash);
        await loaded(tab, page.finalUrl, waitFor, deadline);
        const html = await tab.content();
        if (Buffer.byteLength(html) > deps.config.fetch.maxBytes) throw failed(`rendered page larger than ${deps.config.fetch.maxBytes} bytes`);
        return { html, finalUrl: tab.url(), blocked };
      } catch (error) {
        // The failure of a pending call can come before the event that explains it: one turn later, the event is in.
        if (!gone && !crashed) await new Promise((resolve) => setImmediate(resolve));
        if (crashed || isCrash(error)) throw new BrowserLost('renderer');
        // Nothing closes the page or its context while it renders, so a closed target is a browser gone.
        if (gone || !browser.isConnected() || isTargetClosed(error)) throw new BrowserLost('browser');
        if (callerSignal?.aborted) throw callerSignal.reason;
        throw renderFailure(error, waitFor, timeoutMs);
      } finally {
        browser.off('disconnected', onGone);
      }
    });
  } catch (error) {
    if (error instanceof BrowserGoneError) throw new BrowserLost('browser');
    if (!leased && waiting.timedOut) throw failed(`no browser context became free within ${seconds(timeoutMs)}`);
    if (error instanceof BrowserLaunchError) {
      throw new ApiError('SERVICE_UNAVAILABLE', { estimated_recovery: 'once the browser starts', status_page: '/v1/health' }, `Rendering is unavailable: ${error.message}.`);
    }
    throw error;
  } finally {
    ended.abort();
    callerSignal?.removeEventListener('abort', onCallerAbort);
    waiting.dispose();
  }
}

/** Navigates to the page and waits for `waitFor`, all before `deadline`. */
async function loaded(tab: Page, url: string, waitFor: WaitFor, deadline: number): Promise<void> {
  const left = () => Math.max(1, deadline - Date.now());
  const waitUntil = waitFor === 'networkidle' ? 'networkidle' : typeof waitFor === 'object' ? 'domcontentloaded' : 'load';
  await tab.goto(url, { waitUntil, timeout: left() });
  if (typeof waitFor === 'object') await tab.waitForSelector(waitFor.selector, { state: 'attached', timeout: left() });
  // Milliseconds are a wish, not a condition: what the deadline leaves of them is waited.
  if (typeof waitFor === 'number') await tab.waitForTimeout(Math.min(waitFor, Math.max(0, deadline - Date.now())));
}

/** The navigation to the page itself, in the top frame: answered with the body already fetched. */
function isDocumentOf(request: Request, page: FetchedPage): boolean {
  if (!request.isNavigationRequest() || !sameUrl(request.url(), page.finalUrl)) return false;
  try {
    return request.frame().parentFrame() === null;
  } catch {
    // A request without a frame (a worker's) is no navigation of the page.
    return false;
  }
}

async function relay(deps: RenderDeps, route: Route, request: Request, blocked: BlockCount, signal: AbortSignal, context: BrowserContext): Promise<void> {
  const url = request.url();
  const verdict = judgeRequest(url, request.resourceType(), deps.config.render.blockedResources);
  if (!verdict.allowed) {
    blocked.add(verdict.reason);
    await route.abort('blockedbyclient').catch(() => undefined);
    return;
  }
  const { fetch } = deps.config;
  try {
    const response = await relayRequest(
      { url, method: request.method(), headers: await withCookies(request, context), body: request.postDataBuffer() },
      {
        allowedCidrs: fetch.allowedCidrs, maxRedirects: fetch.maxRedirects, perHostConcurrency: fetch.perHostConcurrency,
        processSlots: deps.fetchLimit, maxBytes: fetch.maxBytes, signal,
      },
    );
    await route.fulfill({ status: response.status, headers: response.headers, body: response.body });
  } catch (error) {
    const refused = refusedAddress(error) ? 'private_address' : error instanceof RedirectRefused && error.reason === 'scheme' ? 'scheme' : undefined;
    if (refused) blocked.add(refused);
    // The route is gone when the render ended first; nothing waits for it then.
    await route.abort(refused ? 'blockedbyclient' : 'failed').catch(() => undefined);
  }
}

/**
 * The request's headers with the context's cookies for its URL: the intercepted request's own
 * headers leave cookies out, and the browser keeps those its relayed responses set.
 */
async function withCookies(request: Request, context: BrowserContext): Promise<Record<string, string>> {
  const headers = { ...request.headers() };
  const cookies = await context.cookies(request.url()).catch(() => []);
  if (cookies.length > 0) headers.cookie = cookies.map((cookie) => `${cookie.name}=${cookie.value}`).join('; ');
  return headers;
}

/** The page's response headers as the browser should see them: the body is already decoded. */
function documentHeaders(page: FetchedPage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(page.headers)) {
    if (!['content-encoding', 'content-length', 'transfer-encoding', 'connection', 'keep-alive'].includes(name)) headers[name] = value;
  }
  return headers;
}

function renderFailure(error: unknown, waitFor: WaitFor, timeoutMs: number): unknown {
  if (error instanceof ApiError) return error;
  // playwright-core's TimeoutError, told by name: the module is only loaded once a browser runs.
  if (error instanceof Error && error.name === 'TimeoutError') {
    if (typeof waitFor === 'object') return failed(`the selector ${JSON.stringify(waitFor.selector)} did not appear within ${seconds(timeoutMs)}`);
    return failed(`the page did not finish loading within ${seconds(timeoutMs)} (wait_for: ${typeof waitFor === 'number' ? 'load' : waitFor})`);
  }
  if (typeof waitFor === 'object' && error instanceof Error && /selector|unexpected token/i.test(error.message)) {
    return new ApiError('INVALID_PARAMETER', { parameter: 'options.wait_for.selector', reason: 'not a selector the browser can parse', provided: waitFor.selector });
  }
  return error;
}

/** Playwright's error for a call on a page, context or browser closed meanwhile (its class is not exported). */
function isTargetClosed(error: unknown): boolean {
  return error instanceof Error && (error.name === 'TargetClosedError' || /Target page, context or browser has been closed/.test(error.message));
}

/** Playwright's error for a call on a page whose renderer crashed. */
function isCrash(error: unknown): boolean {
  return error instanceof Error && /\b(page|target) crashed\b/i.test(error.message);
}

function sameUrl(a: string, b: string): boolean {
  try {
    const left = new URL(a);
    const right = new URL(b);
    left.hash = '';
    right.hash = '';
    return left.href === right.href;
  } catch {
    return false;
  }
}

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

function failed(reason: string): ApiError {
  return new ApiError('EXTRACTION_FAILED', { reason });
}
