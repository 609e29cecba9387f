import type { Kysely } from 'kysely';
import type { Mode } from '../mode.js';
import type { Database } from '../storage/schema.js';

/** How long the index's main language is trusted before it is counted again. */
const TTL_MS = 60_000;
const cache = new Map<string, { language: string; until: number }>();

/**
 * The language a query is analysed in. Documents are stemmed in their language; a query too
 * short to detect one would otherwise not be stemmed and miss them. Without a language from
 * the caller, the mode's most common document language is the best guess.
 */
export async function queryLanguage(db: Kysely<Database>, mode: Mode, given: string | undefined): Promise<string | null> {
  if (given) return given;
  const cached = cache.get(mode);
  if (cached && cached.until > Date.now()) return cached.language;
  const row = await db.selectFrom('index_documents').select(['language', (eb) => eb.fn.countAll<number>().as('n')])
    .where('mode', '=', mode).where('language', 'is not', null).groupBy('language').orderBy('n', 'desc').limit(1).executeTakeFirst();
  if (!row?.language) return null;
  cache.set(mode, { language: row.language, until: Date.now() + TTL_MS });
  return row.language;
}
