/**
 * Firecrawl's includePaths and excludePaths are regular expressions over a URL's path (or the
 * whole URL); a crawl's include and exclude are patterns where `*` matches any run of
 * characters (src/crawl/url-pattern.ts). The expressions people write for paths, literal text
 * with `.*`, translate exactly; any other expression is refused rather than approximated.
 */
import { unsupported } from './compat-answer.js';

/** Regular-expression syntax beyond literal text, `.*`, escaped characters and the anchors. */
const OTHER_SYNTAX = /[[\]()|+?{}]|(?<!\\)\.(?!\*)|(?<!\.)\*/;

export function pathPattern(expression: string, fullUrl: boolean, parameter: string): string {
  const anchoredStart = expression.startsWith('^');
  const anchoredEnd = expression.endsWith('$') && !expression.endsWith('\\$');
  const body = expression.slice(anchoredStart ? 1 : 0, anchoredEnd ? -1 : undefined);
  if (OTHER_SYNTAX.test(body) || body.includes('^') || /(?<!\\)\$/.test(body)) {
    throw unsupported(parameter, 'only literal paths with .* wildcards (and ^, $) translate to crawl patterns', expression);
  }
  let pattern = body.replace(/\.\*/g, '*').replace(/\\(.)/g, '$1');
  if (!anchoredEnd && !pattern.endsWith('*')) pattern += '*';
  // A crawl pattern starting with / is matched against path and query, any other against the
  // whole URL: an expression anchored to the path's start keeps its /, an unanchored one may
  // match anywhere (in the host too, the one looseness of the translation).
  if (!anchoredStart) return pattern.startsWith('*') ? pattern : `*${pattern}`;
  if (fullUrl) return pattern;
  return pattern.startsWith('/') ? pattern : `/${pattern}`;
}
