import { comparable, plainText } from './text.js';

/**
 * The byline: the first source that yields a plausible name wins, sources ordered by how
 * deliberately they state authorship — JSON-LD authors, then <meta> author tags, then
 * itemprop=author, rel=author links, and last elements whose class or id says "byline" or
 * "author". Several names from one source are joined with ", ".
 */
export interface AuthorSources {
  jsonLd: readonly string[];
  /**
   * Values per author <meta> key, keys in order of preference, each key a source of its own:
   * "Jane Doe" (author) and "Doe, Jane" (dc.creator) must not become two authors.
   */
  meta: ReadonlyArray<readonly string[]>;
  itemprop: readonly string[];
  relAuthor: readonly string[];
  bylines: readonly string[];
}

/**
 * "By", "Written by", "Par", "Von", "Por", "Door" before the name, or a label with a colon
 * ("Author:"). Prefixes that are also given names or surnames ("Di") are left alone.
 */
const PREFIX = /^(?:(?:written|posted|reported|story|words|text|photos?|edited)\s+by|by|par|von|por|door)\b\s*:?\s*|^(?:autor|author|auteur|autore|text|texte|words)\s*:\s*/i;
const MONTH = '(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\\.?';
const WEEKDAY = '(?:mon|tues|wednes|thurs|fri|satur|sun)day';
/**
 * What follows the name in a byline: a date, a time, "Updated …", or another role ("Jane Doe
 * March 11, 2015", "Jane Doe | Updated 2 h ago", "Rob Ewaschuk Edited by Betsy Beyer").
 */
const TRAILER = new RegExp(
  `\\s*(?:[|•·,–—-]\\s*)?(?:\\b(?:updated|published|posted|last updated)\\b|\\b(?:edited|photos?|photographs|illustrations?|illustrated|video|additional reporting)\\s+by\\b|\\b${WEEKDAY}\\b|(?:\\bon\\s+)?(?:\\b${MONTH}\\s+\\d{1,2}\\b|\\b\\d{1,2}(?:st|nd|rd|th)?\\.?\\s+${MONTH}|\\b\\d{1,4}[-/.]\\d{1,2}[-/.]\\d{1,4}|\\b\\d{1,2}:\\d{2})).*$`,
  'i',
);
/** Words that appear in byline widgets without naming anyone. */
const NOT_A_NAME = /^(?:authors?|by|admin|administrator|staff|unknown|anonymous|guest|editor|contributors?|follow|follow author|more|share|view profile)$/i;
const MAX_NAME = 100;
const MAX_WORDS = 10;

export function pickAuthor(sources: AuthorSources): string | null {
  const ordered: Array<{ names: readonly string[]; all: boolean }> = [
    { names: sources.jsonLd, all: true },
    ...sources.meta.map((names) => ({ names, all: true })),
    { names: sources.itemprop, all: true },
    { names: sources.relAuthor, all: true },
    // Byline widgets repeat (desktop and mobile copies, header and footer): the first one.
    { names: sources.bylines, all: false },
  ];
  for (const { names, all } of ordered) {
    const found: string[] = [];
    const keys = new Set<string>();
    for (const raw of names) {
      const name = cleanName(raw);
      const key = name ? comparable(name) : '';
      if (!name || !key || keys.has(key)) continue;
      keys.add(key);
      found.push(name);
      if (!all) break;
    }
    if (found.length > 0) return found.join(', ');
  }
  return null;
}

/** The name alone, or null when `raw` is not a plausible person or organisation name. */
export function cleanName(raw: string): string | null {
  let name = plainText(raw);
  if (/^(?:https?:)?\/\/|^www\./i.test(name)) return null; // a profile URL names nobody
  name = name
    .replace(PREFIX, '')
    // A trailer at the very start is the name itself ("Sunday Adebayo").
    .replace(TRAILER, (trailer, at: number) => (at > 0 ? '' : trailer))
    .replace(/^[\s,;:|–—-]+|[\s,;:|–—-]+$/g, '');
  if (!name || name.length > MAX_NAME || name.split(' ').length > MAX_WORDS) return null;
  if (!/\p{L}/u.test(name) || NOT_A_NAME.test(name)) return null;
  return name;
}
