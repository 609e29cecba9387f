/**
 * Include and exclude patterns of a crawl: globs whose only wildcard is `*` (any run of
 * characters, `/` included); everything else matches itself. A pattern starting with `/` is
 * matched against the URL's path and query (`/blog/*`), any other against the whole URL
 * (`https://docs.example.com/*`, `*.pdf`). A match covers the whole string.
 *
 * Globs rather than regular expressions: a client-supplied regex can backtrack catastrophically,
 * while a `*`-only glob is decided by one left-to-right scan with indexOf (the leftmost match of
 * each literal piece is always the right choice), linear in practice and never exponential.
 */

export interface UrlPattern {
  readonly source: string;
  matches(url: URL): boolean;
}

export function compilePattern(source: string): UrlPattern {
  const pieces = source.split('*');
  const onPath = source.startsWith('/');
  return {
    source,
    matches: (url) => globMatches(pieces, onPath ? url.pathname + url.search : url.href),
  };
}

/** Whether any of the patterns matches. */
export function matchesAny(patterns: readonly UrlPattern[], url: URL): boolean {
  return patterns.some((pattern) => pattern.matches(url));
}

/** pieces: the pattern split at each `*` (so one piece means no wildcard). */
function globMatches(pieces: readonly string[], text: string): boolean {
  const first = pieces[0]!;
  if (pieces.length === 1) return text === first;
  const last = pieces[pieces.length - 1]!;
  if (text.length < first.length + last.length || !text.startsWith(first) || !text.endsWith(last)) return false;
  let at = first.length;
  const end = text.length - last.length;
  for (let i = 1; i < pieces.length - 1; i++) {
    const piece = pieces[i]!;
    const found = text.indexOf(piece, at);
    if (found < 0 || found + piece.length > end) return false;
    at = found + piece.length;
  }
  return true;
}
