import { plainText } from './text.js';

/**
 * What schema.org JSON-LD says about the page's article: publishers write it for search
 * engines, so it is usually the cleanest statement of headline, authors and dates.
 */
export interface LinkedData {
  /** headline, then name, of the article object: both, since either may be the cleaner title. */
  titles: string[];
  authors: string[];
  datePublished: string | null;
  publisher: string | null;
  /** name of a WebSite object, the site name when the article names no publisher. */
  website: string | null;
  description: string | null;
}

type JsonObject = Record<string, unknown>;

/** schema.org types whose headline, author and date describe the page's own article. */
const ARTICLE_TYPE = /Article$|Posting$|^Report$|^Review$|^Recipe$/;
/**
 * Types describing the page as a whole, used when no article type is present. Media objects
 * (VideoObject …) are left out: on an article page they describe an embedded clip.
 */
const PAGE_TYPE = /Page$|^CreativeWork$/;
/** JSON-LD nests little; deeper values are not the page's article and a bound keeps walks cheap. */
const MAX_DEPTH = 6;
const MAX_OBJECTS = 500;

export function readLinkedData(scripts: readonly string[]): LinkedData {
  const objects: JsonObject[] = [];
  for (const script of scripts) {
    const parsed = parseJson(script);
    if (parsed !== undefined) collectObjects(parsed, objects);
  }
  const byId = new Map<string, JsonObject>();
  for (const object of objects) if (typeof object['@id'] === 'string') byId.set(object['@id'], object);
  const resolve = (value: unknown): unknown => (isObject(value) && typeof value['@id'] === 'string' && !('name' in value) ? (byId.get(value['@id']) ?? value) : value);

  const article = objects.find((o) => types(o).some((t) => ARTICLE_TYPE.test(t))) ?? objects.find((o) => types(o).some((t) => PAGE_TYPE.test(t)));
  const website = objects.find((o) => types(o).includes('WebSite'));
  const result: LinkedData = { titles: [], authors: [], datePublished: null, publisher: null, website: text(website?.name), description: null };
  if (!article) return result;

  for (const key of ['headline', 'name']) {
    const title = text(article[key]);
    if (title && !result.titles.includes(title)) result.titles.push(title);
  }
  result.authors = names(article.author ?? article.creator, resolve);
  result.datePublished = text(article.datePublished) ?? text(article.dateCreated);
  result.publisher = names(article.publisher, resolve)[0] ?? null;
  result.description = text(article.description);
  return result;
}

/**
 * JSON.parse after repairing what publishers commonly break: HTML comment or CDATA wrappers,
 * a trailing semicolon, and raw control characters (new lines inside strings).
 */
function parseJson(script: string): unknown {
  const body = script
    .trim()
    .replace(/^(?:<!--|<!\[CDATA\[)|(?:-->|\]\]>)$/g, '')
    .trim()
    .replace(/;$/, '');
  try {
    return JSON.parse(body);
  } catch {
    try {
      return JSON.parse(body.replace(/[\u0000-\u001f]+/g, ' '));
    } catch {
      return undefined;
    }
  }
}

/**
 * Every object reachable through arrays, @graph and mainEntity, breadth-first and bounded.
 * Not through ItemList elements: those are teasers of other pages.
 */
function collectObjects(root: unknown, into: JsonObject[]): void {
  let level: unknown[] = [root];
  for (let depth = 0; depth < MAX_DEPTH && level.length > 0 && into.length < MAX_OBJECTS; depth++) {
    const next: unknown[] = [];
    for (const value of level) {
      if (Array.isArray(value)) next.push(...value.slice(0, MAX_OBJECTS));
      else if (isObject(value)) {
        if (into.length < MAX_OBJECTS) into.push(value);
        for (const key of ['@graph', 'mainEntity']) if (key in value) next.push(value[key]);
      }
    }
    level = next;
  }
}

function types(object: JsonObject): string[] {
  const value = object['@type'];
  const list = Array.isArray(value) ? value : [value];
  // "http://schema.org/NewsArticle" and "schema:NewsArticle" name NewsArticle too.
  return list.filter((t): t is string => typeof t === 'string').map((t) => t.replace(/^.*[/:#]/, ''));
}

/** Names of persons or organisations given as strings, objects, @id references or lists of them. */
function names(value: unknown, resolve: (value: unknown) => unknown): string[] {
  const found: string[] = [];
  for (const item of Array.isArray(value) ? value.slice(0, 50) : [value]) {
    const entity = resolve(item);
    const name = typeof entity === 'string' ? text(entity) : isObject(entity) ? text(entity.name) : null;
    // An author given only as a profile URL names nobody.
    if (name && !/^https?:\/\//i.test(name) && !found.includes(name)) found.push(name);
  }
  return found;
}

/** A non-empty string as plain text; the first of a list of strings. */
function text(value: unknown): string | null {
  const first = Array.isArray(value) ? value[0] : value;
  if (typeof first !== 'string') return null;
  return plainText(first) || null;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
