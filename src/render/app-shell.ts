/**
 * Whether a page's static HTML is the shell of a client-rendered app: the markup a browser gets
 * before scripts draw the content. options.render "auto" renders a page only when its static
 * HTML offers no main content AND shows at least one of these signs, so an article that simply
 * has little text, or none to find, is not sent through a browser for nothing.
 *
 * Signs, each cheap to read from the markup alone (nothing is fetched):
 * - empty-root: the element frameworks mount into (id root, app, __next, __nuxt, ___gatsby …,
 *   or Angular's <app-root>) holds (almost) no text: "Loading…" at most;
 * - scripts-without-text: scripts (any external one, or inline ones of some size) on a page
 *   with next to no visible text, i.e. a bundle that is meant to write it;
 * - noscript-notice: a <noscript> that talks about JavaScript ("You need to enable JavaScript
 *   to run this app."), in whatever language: the word JavaScript is kept in all of them.
 */
import { Parser } from 'htmlparser2';

export type AppShellSign = 'empty-root' | 'scripts-without-text' | 'noscript-notice';

export interface AppShellReading {
  signs: AppShellSign[];
  /** Characters of text a reader sees without scripts (outside head, script, style, noscript, template). */
  visibleTextChars: number;
  /** Characters of inline script, and scripts loaded from a src. */
  inlineScriptChars: number;
  externalScripts: number;
}

/** Ids of the element that React, Vue, Next, Nuxt, Gatsby, Svelte, Quasar and others mount into. */
const ROOT_IDS = new Set(['root', 'app', 'app-root', '__next', '__nuxt', '___gatsby', 'svelte', 'q-app', 'main-app', 'react-root', 'application']);
const ROOT_TAGS = new Set(['app-root']);
/** A root holding at most this much text is empty: room for "Loading…" or "Please wait". */
const EMPTY_ROOT_CHARS = 40;
/** Visible text below which a page's scripts, rather than its markup, must be what shows content. */
const SCRIPT_PAGE_TEXT_CHARS = 200;
/** Inline script that counts as a bundle (state blobs, an inlined app) rather than a tag snippet. */
const INLINE_BUNDLE_CHARS = 1000;
/** Main content shorter than this (characters) leaves room for the app to be what holds the page's text. */
export const THIN_CONTENT_CHARS = 200;

const HIDDEN = new Set(['head', 'script', 'style', 'noscript', 'template', 'title']);

export function readAppShell(html: string): AppShellReading {
  let depth = 0;
  // Depth at which a hidden element opened; text below it is not visible.
  let hiddenDepth = -1;
  let inScript = false;
  let inNoscript = false;
  let noscriptText = '';
  let visibleTextChars = 0;
  let inlineScriptChars = 0;
  let externalScripts = 0;
  let root: { depth: number; text: number } | undefined;
  let emptyRoot = false;

  const parser = new Parser({
    onopentag(name, attributes) {
      depth++;
      if (hiddenDepth < 0 && HIDDEN.has(name)) hiddenDepth = depth;
      if (name === 'script') {
        inScript = true;
        if (attributes.src !== undefined && isJavaScript(attributes.type)) externalScripts++;
      }
      if (name === 'noscript') inNoscript = true;
      if (!root && !emptyRoot && (ROOT_IDS.has((attributes.id ?? '').toLowerCase()) || ROOT_TAGS.has(name))) root = { depth, text: 0 };
    },
    ontext(text) {
      if (inScript) {
        inlineScriptChars += text.trim().length;
        return;
      }
      if (inNoscript) noscriptText += text;
      if (hiddenDepth >= 0) return;
      const chars = text.replace(/\s+/g, ' ').trim().length;
      visibleTextChars += chars;
      if (root) root.text += chars;
    },
    onclosetag(name) {
      if (name === 'script') inScript = false;
      if (name === 'noscript') inNoscript = false;
      if (root && depth === root.depth) {
        emptyRoot = root.text <= EMPTY_ROOT_CHARS;
        root = undefined;
      }
      if (depth === hiddenDepth) hiddenDepth = -1;
      depth--;
    },
  }, { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true });
  parser.end(html);

  const signs: AppShellSign[] = [];
  if (emptyRoot) signs.push('empty-root');
  if (visibleTextChars < SCRIPT_PAGE_TEXT_CHARS && (externalScripts > 0 || inlineScriptChars >= INLINE_BUNDLE_CHARS)) signs.push('scripts-without-text');
  if (/javascript/i.test(noscriptText)) signs.push('noscript-notice');
  return { signs, visibleTextChars, inlineScriptChars, externalScripts };
}

/** On options.render "auto": whether the static reading (its main content's length) leaves the page to a browser. */
export function needsRendering(mainContentChars: number, reading: Pick<AppShellReading, 'signs'>): boolean {
  return mainContentChars < THIN_CONTENT_CHARS && reading.signs.length > 0;
}

/** Scripts a browser runs: no type, a JavaScript MIME type, or a module (not JSON, templates or other data blocks). */
function isJavaScript(type: string | undefined): boolean {
  if (type === undefined || type.trim() === '') return true;
  const t = type.trim().toLowerCase();
  return t === 'module' || /^(text|application)\/(x-)?(java|ecma)script$/.test(t);
}
