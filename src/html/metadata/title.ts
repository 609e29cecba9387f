import { comparable, plainText } from './text.js';

/**
 * The article's title without the site-name decoration pages add to it ("Title | Site",
 * "Site - Title", "Title - Author - Site").
 *
 * Rules, in order:
 * 1. Headline metadata (JSON-LD headline and name, Dublin Core title, og:title, twitter:title,
 *    parsely-title, itemprop=headline) is preferred to the <title>, which is preferred to the
 *    first <h1>: publishers fill the first for sharing and search, so it is the least decorated.
 *    Among headlines, the first that the <title> or an <h1> repeats wins, the title the reader
 *    sees (Wikipedia's JSON-LD headline is a description, its name the title).
 * 2. Leading and trailing separator-delimited segments that are a known name (site name,
 *    publisher, application name, host name, an author) are removed from every candidate.
 * 3. If another candidate is the chosen one minus some segments (og:title "X" beside <title>
 *    "X | Site", an <h1> "X" beside it), that shorter run is the title: two sources agreeing
 *    on "X" show the rest is decoration, even when its name is unknown. A leading run wins
 *    over a trailing one ("Title | Site" is the common order) and a trailing or middle run
 *    must be the larger part; a smaller first or last segment that another candidate repeats
 *    is a name instead (a site-name <h1>) and is removed.
 * 4. A title known only from <title> loses a trailing segment of at most three words when what
 *    remains is clearly longer, the usual shape of "Title | Site" on pages with no other hint.
 */
export interface TitleSources {
  /** Headline metadata in order of preference. */
  headlines: readonly string[];
  documentTitle: string | null;
  headings: readonly string[];
  /** Names that decorate titles: site, publisher, host, authors. */
  names: readonly string[];
}

/** Spaced dashes, bars, bullets, slashes, "::", "»"; bars without spaces; "_" beside non-Latin text. */
const SEPARATOR = /(\s+(?:[|\-–—·•»~/\\]|::)\s+|\s*[|｜]\s*|\s+_\s*|\s*_\s+|(?<=[^\x00-\x7F])_|_(?=[^\x00-\x7F]))/u;
/** Titles with more segments than this are not "title + decoration"; splitting them helps nobody. */
const MAX_SEGMENTS = 8;
const MAX_TITLE = 500;

export function pickTitle(sources: TitleSources): string | null {
  const names = nameKeys(sources.names);
  const clean = (text: string): string => stripNames(plainText(text), names);
  const headlines = sources.headlines.map(clean).filter(Boolean);
  const documentTitle = sources.documentTitle ? clean(sources.documentTitle) : '';
  const headings = sources.headings.map(clean).filter(Boolean);
  const candidates = [...headlines, documentTitle, ...headings].filter(Boolean);

  const shown = [documentTitle, ...headings].filter(Boolean);
  const corroborated = headlines.find((headline) => shown.some((other) => agree(headline, other)));
  const chosen = corroborated ?? headlines[0] ?? (documentTitle || headings[0]);
  if (!chosen) return null;
  const core = coreOf(chosen, candidates.filter((other) => other !== chosen));
  if (core) return core.slice(0, MAX_TITLE);
  return (chosen === documentTitle && headlines.length === 0 ? dropUnnamedSuffix(chosen) : chosen).slice(0, MAX_TITLE);
}

/** Two candidates name the same title: equal, or one is a segment run of the other. */
function agree(a: string, b: string): boolean {
  const keyA = comparable(a);
  const keyB = comparable(b);
  return keyA === keyB || runKeys(a).has(keyB) || runKeys(b).has(keyA);
}

/** Comparable keys of every contiguous run of `title`'s segments (none for an unsplittable title). */
function runKeys(title: string): Set<string> {
  const keys = new Set<string>();
  const { parts, separators } = split(title);
  if (parts.length < 2 || parts.length > MAX_SEGMENTS) return keys;
  for (let from = 0; from < parts.length; from++) {
    for (let to = from + 1; to <= parts.length; to++) keys.add(comparable(join(parts, separators, from, to)));
  }
  return keys;
}

/** Comparable keys of `names`, also without a leading "The" and a domain's top-level part. */
function nameKeys(names: readonly string[]): Set<string> {
  const keys = new Set<string>();
  for (const name of names) {
    const variants = [name, name.replace(/^the\s+/i, ''), name.replace(/^www\./i, '').replace(/\.[a-z]{2,6}$/i, '')];
    for (const variant of variants) {
      const key = comparable(variant);
      if (key) keys.add(key);
    }
  }
  return keys;
}

/** The separator-delimited segments of a title or name, with the separators between them. */
export function split(title: string): { parts: string[]; separators: string[] } {
  const pieces = title.split(SEPARATOR);
  const parts: string[] = [];
  const separators: string[] = [];
  for (let i = 0; i < pieces.length; i++) (i % 2 === 0 ? parts : separators).push(pieces[i]!);
  return { parts, separators };
}

function join(parts: string[], separators: string[], from: number, to: number): string {
  let text = parts[from]!;
  for (let i = from + 1; i < to; i++) text += separators[i - 1]! + parts[i]!;
  return text.trim();
}

function stripNames(title: string, names: Set<string>): string {
  const { parts, separators } = split(title);
  if (parts.length < 2 || parts.length > MAX_SEGMENTS) return title;
  let from = 0;
  let to = parts.length;
  const isName = (part: string): boolean => names.has(comparable(part)) || names.has(comparable(part.replace(/^the\s+/i, '')));
  while (to - from > 1 && isName(parts[to - 1]!)) to--;
  while (to - from > 1 && isName(parts[from]!)) from++;
  return join(parts, separators, from, to);
}

/**
 * The run of `title`'s segments that another candidate repeats (rule 3), or null. A repeated
 * first or last segment too small to be the title is a name instead (a site-name <h1>): the
 * title is then what remains without it.
 */
function coreOf(title: string, others: string[]): string | null {
  const { parts, separators } = split(title);
  if (parts.length < 2 || parts.length > MAX_SEGMENTS) return null;
  const otherKeys = new Set(others.map(comparable));
  const titleLength = comparable(title).length;
  let best: string | null = null;
  let bestLeading = false;
  for (let from = 0; from < parts.length; from++) {
    for (let to = from + 1; to <= parts.length; to++) {
      if (from === 0 && to === parts.length) continue;
      const run = join(parts, separators, from, to);
      const key = comparable(run);
      const leading = from === 0;
      const large = leading ? key.length * 3 >= titleLength : key.length * 2 > titleLength;
      if (!otherKeys.has(key) || !large) continue;
      if (!best || (leading && !bestLeading) || (leading === bestLeading && run.length > best.length)) {
        best = run;
        bestLeading = leading;
      }
    }
  }
  if (best) return best;
  if (otherKeys.has(comparable(parts[parts.length - 1]!))) return join(parts, separators, 0, parts.length - 1);
  if (otherKeys.has(comparable(parts[0]!))) return join(parts, separators, 1, parts.length);
  return null;
}

function dropUnnamedSuffix(title: string): string {
  const { parts, separators } = split(title);
  if (parts.length < 2 || parts.length > MAX_SEGMENTS) return title;
  const last = parts[parts.length - 1]!;
  const rest = join(parts, separators, 0, parts.length - 1);
  const short = last.split(/\s+/).length <= 3 && comparable(last).length <= 20;
  return short && comparable(rest).length > 2 * comparable(last).length ? rest : title;
}
