/**
 * What a request body must be besides valid JSON, checked once at the edge before anything else
 * reads it: nested at most MAX_JSON_DEPTH levels, and well-formed Unicode throughout.
 *
 * Depth: V8 parses any depth, but JSON.stringify, AJV's error reporting, the cache and MySQL's JSON
 * columns all recurse, and a few thousand levels overflow the stack (a 500). 64 levels leave room
 * below MySQL's own limit of 100 for a body stored inside a wrapper of ours, and no request of
 * this API needs more than a handful.
 *
 * Unicode: a JSON escape can spell a lone UTF-16 surrogate ("\ud800"), which JavaScript holds but
 * UTF-8 cannot encode: Redis's Lua JSON decoder refuses it, MySQL stores U+FFFD instead. Raw bytes
 * cannot produce one (they are decoded as UTF-8, invalid sequences as U+FFFD), nor can query
 * strings or paths (percent-decoding does the same), so bodies are the one place to check.
 */
import { ApiError } from '../errors/catalogue.js';

export const MAX_JSON_DEPTH = 64;

/** Under the u flag a surrogate pair is one code point, so this matches lone surrogates only. */
const LONE_SURROGATE = /\p{Surrogate}/u;

const ILL_FORMED_VALUE = 'holds a lone UTF-16 surrogate (not well-formed Unicode)';
const ILL_FORMED_NAME = 'has a member name holding a lone UTF-16 surrogate (not well-formed Unicode)';

/** Throws INVALID_PARAMETER for the first place `body` nests too deep or holds ill-formed text. */
export function checkJsonShape(body: unknown): void {
  visit(body, []);
}

// Recursion is safe here: it stops one level past MAX_JSON_DEPTH whatever the input.
function visit(value: unknown, path: string[]): void {
  if (typeof value === 'string') {
    if (LONE_SURROGATE.test(value)) throw invalid(path, ILL_FORMED_VALUE);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  // The body's own array or object is the first level, so this one's level is path.length + 1.
  if (path.length === MAX_JSON_DEPTH) {
    // Named by the top-level field it is in: the full path could be 64 long names.
    const parameter = dotted(path.slice(0, 1)) || 'body';
    throw new ApiError('INVALID_PARAMETER', { parameter, reason: `nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep` },
      `${parameter} nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep; a request body may nest at most ${MAX_JSON_DEPTH}.`);
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      path.push(String(i));
      visit(value[i], path);
      path.pop();
    }
    return;
  }
  for (const [name, member] of Object.entries(value)) {
    if (LONE_SURROGATE.test(name)) throw invalid(path, ILL_FORMED_NAME);
    path.push(name);
    visit(member, path);
    path.pop();
  }
}

function invalid(path: readonly string[], reason: string): ApiError {
  const parameter = dotted(path) || 'body';
  return new ApiError('INVALID_PARAMETER', { parameter, reason }, `${parameter} ${reason}`);
}

/** 'options.timeout', 'sources[3]'; '' for the root. */
export function dotted(segments: readonly string[]): string {
  return segments.reduce((acc, s) => (/^\d+$/.test(s) ? `${acc}[${s}]` : acc ? `${acc}.${s}` : s), '');
}
