/**
 * Keys of the result cache. Two requests that must get the same answer must meet under one key,
 * and two that may get different answers must never do so: the key is the normalised query plus
 * a canonical serialisation of every parameter that changes the answer.
 */
import { createHash } from 'node:crypto';
import { foldCase, normalizeChunk } from '../text/normalize.js';

/** Longer keys are replaced by their hash: Redis key names stay short whatever the parameters. */
const MAX_RAW_KEY_CHARS = 200;

const WHITESPACE_RUN = /\s+/gu;

/**
 * The query as the cache compares it: NFKC, whitespace runs collapsed to one space, trimmed, and
 * case-folded the way the search index folds its terms ("Straße" and "STRASSE" meet, as do
 * full-width and ASCII letters), so that spelling variants the index cannot tell apart share an entry.
 */
export function normaliseQuery(query: string): string {
  return rememberedQuery(query).normal;
}

/** The audit's `query_hash`: `sha256:` and the hex SHA-256 of the normalised query. */
export function queryHash(query: string): string {
  const entry = rememberedQuery(query);
  entry.hash ??= `sha256:${createHash('sha256').update(entry.normal).digest('hex')}`;
  return entry.hash;
}

/**
 * Queries whose normal form and hash are remembered, oldest out first: a cached search is a query
 * asked again, and it was normalised twice (for the key and for the audit) and hashed on every
 * request. Remembered, the key and the hash of a short query cost 1.1–1.3 µs instead of 2.3–2.6
 * (a loop of 200,000 on this machine, 2026-11-29), of the 60–70 µs of CPU the service spends on a
 * cached search.
 */
const REMEMBERED_QUERIES = 1024;
/** Longer queries are not remembered: they rarely come back, and would hold most of the memory. */
const REMEMBERED_QUERY_CHARS = 512;
const remembered = new Map<string, { normal: string; hash?: string }>();

function rememberedQuery(query: string): { normal: string; hash?: string } {
  let entry = remembered.get(query);
  if (!entry) {
    entry = { normal: foldCase(normalizeChunk(query).replace(WHITESPACE_RUN, ' ').trim()) };
    if (query.length <= REMEMBERED_QUERY_CHARS) {
      if (remembered.size >= REMEMBERED_QUERIES) remembered.delete(remembered.keys().next().value as string);
      remembered.set(query, entry);
    }
  }
  return entry;
}

/**
 * The key of a query with the parameters that change its answer. Parameters whose value is
 * undefined are left out, so `cacheKey(q, {})` is the key that GET /v1/cache/query and
 * POST /v1/cache/store use for q. Object keys are sorted at every depth; array order is kept
 * (sort arrays whose order does not matter before passing them). The raw form is a JSON array,
 * so no query text can imitate a parameter; a raw form over 200 characters becomes
 * `#` + base64url(SHA-256), which no raw form (always starting with `[`) can equal.
 */
export function cacheKey(query: string, params: Readonly<Record<string, unknown>>): string {
  const raw = canonicalJson([normaliseQuery(query), params]);
  return raw.length <= MAX_RAW_KEY_CHARS ? raw : `#${createHash('sha256').update(raw).digest('base64url')}`;
}

/** JSON with object keys in code-point order and undefined members dropped: equal values, equal text. */
export function canonicalJson(input: unknown): string {
  // Dates and the like serialise through toJSON, as JSON.stringify would.
  const value = hasToJson(input) ? input.toJSON() : input;
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const members = Object.entries(value)
      .filter(([, member]) => member !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, member]) => `${JSON.stringify(name)}:${canonicalJson(member)}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function hasToJson(value: unknown): value is { toJSON(): unknown } {
  return typeof value === 'object' && value !== null && typeof (value as { toJSON?: unknown }).toJSON === 'function';
}
