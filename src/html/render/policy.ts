/**
 * What the output formats let through from the page: which URLs may become links and images,
 * and which code-language names may reach a fence info string or a class attribute. One policy
 * for markdown, html and json, so a client sees the same links whatever format it asked for.
 */

const LINK_SCHEMES = new Set(['http:', 'https:', 'mailto:']);
const IMAGE_SCHEMES = new Set(['http:', 'https:']);
const LANGUAGE = /^[a-z0-9+#-]+$/;

/** An absolute http, https or mailto URL in serialised form, or null when it must not be a link. */
export function safeHref(raw: string): string | null {
  return allowed(raw, LINK_SCHEMES);
}

/** An absolute http or https URL in serialised form, or null when the image must be dropped (data: included). */
export function safeImageSrc(raw: string): string | null {
  return allowed(raw, IMAGE_SCHEMES);
}

/** The lower-cased language name when it is a plain identifier such as "c++", "f#" or "objective-c"; null otherwise. */
export function codeLanguage(raw: string | null): string | null {
  if (raw === null) return null;
  const name = raw.trim().toLowerCase();
  return LANGUAGE.test(name) ? name : null;
}

/**
 * Parses with the WHATWG URL parser, the one browsers use: it strips leading and trailing
 * control characters and spaces, removes tabs and newlines anywhere and lower-cases the scheme,
 * so "\u0001JaVa\tScRiPt:" is seen as the javascript: a browser would run. Relative leftovers
 * do not parse without a base and are refused: content detection resolves references first.
 * The serialised href is returned because it has no whitespace or control characters left and
 * percent-encodes quotes and angle brackets outside mailto.
 */
function allowed(raw: string, schemes: ReadonlySet<string>): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  return schemes.has(url.protocol) ? url.href : null;
}
