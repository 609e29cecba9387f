/**
 * Reading a page for extraction as options.render asks: "never" reads it as ever (readPage);
 * "always" renders it in the browser; "auto" reads it statically first and renders it only
 * when the static HTML has no main content to speak of but shows the signs of a client-rendered
 * app (app-shell.ts). Either way the page is fetched by the fetcher first (redirects, robots.txt,
 * the SSRF guard, the size limit), the browser starting from that document, and the DOM a render
 * produces is cleaned in the pool by the same task as a static page.
 *
 * The result says what was done and why (RenderReport), for the response's `render`.
 */
import type { RenderMode } from '../config.js';
import { ApiError } from '../errors/catalogue.js';
import type { FetchedPage } from '../fetch/fetch-page.js';
import type { Metrics } from '../metrics/metrics.js';
import { decodeBody } from '../page/decode-body.js';
import { measuredFetch } from '../page/page-fetch.js';
import { cleanPage, contentProblem, readPage, withinPoolLimit, type PageRead, type PageReaderDeps, type ReadOptions } from '../page/read-page.js';
import { needsRendering, readAppShell, type AppShellSign } from './app-shell.js';
import type { BrowserPool } from './browser-pool.js';
import type { BlockReason } from './request-policy.js';
import { renderPage, type RenderedPage, type WaitFor } from './render-page.js';

export interface RenderingDeps extends PageReaderDeps {
  /** The worker process's browser; absent where no rendering is set up (it then counts as unavailable). */
  browsers?: BrowserPool | undefined;
  metrics?: (PageReaderDeps['metrics'] & Pick<Metrics, 'renders' | 'renderDuration' | 'renderBlockedRequests'>) | undefined;
}

export interface RenderRequest {
  mode: RenderMode;
  waitFor: WaitFor;
}

/** The response's `render`: whether the page went through the browser, and why. */
export interface RenderReport {
  mode: Exclude<RenderMode, 'never'>;
  rendered: boolean;
  reason: string;
  /** On auto: the signs of a client-rendered app the static HTML shows. */
  signs?: AppShellSign[];
  /** Requests of the rendered page refused (private address, scheme, resource type), in all and by reason. */
  blocked_requests?: number;
  blocked?: Record<BlockReason, number>;
  /** 2 when the first render was lost to a browser crash. */
  attempts?: number;
  /** Time in the browser, milliseconds. */
  render_ms?: number;
}

export interface RenderedRead extends PageRead {
  /** Absent for render "never". */
  render?: RenderReport;
}

/**
 * @throws ApiError as readPage does; SERVICE_UNAVAILABLE for render "always" where no browser can
 *   run; EXTRACTION_FAILED when the page does not meet its wait condition within options.timeout
 *   (counted from the start of the fetch), crashes the browser twice, or has no main content
 *   rendered either.
 */
export async function readPageRendered(deps: RenderingDeps, url: string, options: ReadOptions, render: RenderRequest): Promise<RenderedRead> {
  if (render.mode === 'never') return readPage(deps, url, options);
  const deadline = Date.now() + options.timeoutMs;
  const mode = render.mode;
  if (mode === 'always') {
    const missing = await unavailable(deps);
    if (missing) {
      deps.metrics?.renders.inc({ outcome: 'unavailable' });
      throw new ApiError('SERVICE_UNAVAILABLE', { estimated_recovery: 'once a browser is installed', status_page: '/v1/health' }, `Rendering is unavailable: ${missing}.`);
    }
  }
  options.signal?.throwIfAborted();
  const page = await measuredFetch(deps, url, options);
  // Only HTML runs in a browser; anything else is read as it is.
  if (page.kind !== 'html') {
    const read = await staticRead(deps, page, options);
    return { ...read, render: { mode, rendered: false, reason: 'not an HTML page' } };
  }
  const html = decodeBody(page.body, page.charset);

  let signs: AppShellSign[] | undefined;
  let staticProblem: string | undefined;
  if (mode === 'auto') {
    const cleaned = await withinPoolLimit(() => cleanPage(deps, page, html, options));
    staticProblem = contentProblem(cleaned, options.minContentLength);
    const mainChars = cleaned.quality === 0 ? 0 : cleaned.text.trim().length;
    signs = readAppShell(html).signs;
    if (!needsRendering(mainChars, { signs })) {
      deps.metrics?.renders.inc({ outcome: 'static' });
      if (staticProblem) throw failed(staticProblem);
      const reason = signs.length === 0 ? 'no sign of a client-rendered app' : 'the static HTML has main content';
      return { page, cleaned, render: { mode, rendered: false, reason, signs } };
    }
    const missing = await unavailable(deps);
    if (missing) {
      deps.metrics?.renders.inc({ outcome: 'unavailable' });
      const reason = `the page looks client-rendered (${signs.join(', ')}), but ${missing}; read without rendering`;
      if (staticProblem) throw failed(`${staticProblem}: ${reason}`);
      return { page, cleaned, render: { mode, rendered: false, reason, signs } };
    }
  }

  const started = Date.now();
  const stop = deps.metrics?.renderDuration.startTimer();
  let rendered: RenderedPage;
  try {
    rendered = await renderPage({ ...deps, browsers: deps.browsers! }, page, render.waitFor, deadline, options.signal);
    deps.metrics?.renders.inc({ outcome: 'rendered' });
  } catch (error) {
    deps.metrics?.renders.inc({ outcome: error instanceof ApiError ? error.code : 'error' });
    throw error;
  } finally {
    stop?.();
  }
  const renderedPage: FetchedPage = { ...page, finalUrl: rendered.finalUrl };
  const cleaned = await withinPoolLimit(() => cleanPage(deps, renderedPage, rendered.html, options));
  const problem = contentProblem(cleaned, options.minContentLength);
  if (problem) throw failed(`${problem} (rendered)`);
  return {
    page: renderedPage,
    cleaned,
    render: {
      mode,
      rendered: true,
      reason: mode === 'always' ? 'render "always" was asked' : `the static HTML has ${staticProblem ? 'no main content' : 'little main content'} and looks client-rendered`,
      ...(signs ? { signs } : {}),
      blocked_requests: rendered.blocked.total,
      blocked: { ...rendered.blocked.byReason },
      attempts: rendered.attempts,
      render_ms: Date.now() - started,
    },
  };
}

async function staticRead(deps: RenderingDeps, page: FetchedPage, options: ReadOptions): Promise<PageRead> {
  // The pool decodes the page (a PDF is read from its bytes anyway).
  const cleaned = await withinPoolLimit(() => cleanPage(deps, page, undefined, options));
  const problem = contentProblem(cleaned, options.minContentLength);
  if (problem) throw failed(problem);
  return { page, cleaned };
}

/** Why this process cannot render, or undefined when it can. */
async function unavailable(deps: RenderingDeps): Promise<string | undefined> {
  if (!deps.browsers) return 'this process has no browser set up';
  return deps.browsers.unavailable();
}

function failed(reason: string): ApiError {
  return new ApiError('EXTRACTION_FAILED', { reason });
}
