/**
 * Extraction rows of concurrent jobs written together (a group commit, as the index groups its
 * writes: src/index/grouped-writes.ts): a row that arrives while an INSERT of its mode is under
 * way waits for it and goes into the next, one multi-row INSERT for every row that arrived
 * meanwhile. One statement and one commit for several pages instead of one each: less of the
 * worker's CPU (a statement costs the driver and the socket more than its rows do) and of the
 * database's. A caller resolves only once its row is committed; a group that fails is written
 * again row by row, so only the row at fault fails.
 */
import type { Kysely } from 'kysely';
import type { Mode } from '../mode.js';
import type { Database } from '../storage/schema.js';
import { GroupedWrites } from '../index/grouped-writes.js';
import { insertExtractions, type StoredExtraction } from './extraction.repository.js';

/** Rows per statement at most … */
const ROWS_PER_INSERT = 8;
/** … and a row larger than this (text and blocks, in characters) goes alone: a statement stays well under max_allowed_packet. */
const GROUPED_ROW_MAX_CHARS = 1_000_000;

export class ExtractionRows {
  private readonly writes: GroupedWrites<StoredExtraction, void>;

  constructor(private readonly db: Kysely<Database>) {
    this.writes = new GroupedWrites(async (_mode, rows) => {
      await insertExtractions(db, rows);
      return rows.map(() => undefined);
    }, ROWS_PER_INSERT);
  }

  /** Resolves once the row is committed. */
  async insert(row: StoredExtraction): Promise<void> {
    const size = row.contentText.length + (row.blocksJson?.length ?? 0) + (row.otherLinksJson?.length ?? 0);
    if (size > GROUPED_ROW_MAX_CHARS) await insertExtractions(this.db, [row]);
    else await this.writes.add(row.mode as Mode, [row]);
  }
}
