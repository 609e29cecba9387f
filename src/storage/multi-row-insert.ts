import { escape } from 'mysql2';
import { sql, type RawBuilder } from 'kysely';

export type Cell = string | number | Date | Uint8Array | null;

/**
 * A value as SQL text: integers as they are, datetimes in UTC to the millisecond, bytes in hex
 * (X'…', as mysql2 sends a Buffer parameter), strings quoted by mysql2's own escaping.
 */
function literal(value: Cell): string {
  if (value === null) return 'NULL';
  if (typeof value === 'number') return Number.isSafeInteger(value) ? String(value) : escape(value);
  if (value instanceof Date) return `'${value.toISOString().slice(0, 23).replace('T', ' ')}'`;
  if (value instanceof Uint8Array) return `X'${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex')}'`;
  return escape(value);
}

/** Values as the SQL list of an IN (…), escaped as literal() does; `NULL` for none, which IN never matches. */
export function literalList(values: readonly Cell[]): string {
  return values.length === 0 ? 'NULL' : values.map(literal).join(',');
}

/**
 * One multi-row INSERT of many rows of plain values, for the audit writer's batches (a batch of
 * 500 entries writes some 2,000 rollup rows, 30,000 values) and the index's writes (a segment's
 * postings lists, passages, terms). The values are written into the
 * statement as literals, escaped as mysql2 escapes parameters on the text protocol Kysely uses, so
 * the text sent is what a parameterised query would send; building it takes a fraction of the
 * CPU of a query tree and a row object per row.
 */
export function multiRowInsert(table: string, columns: readonly string[], rows: readonly (readonly Cell[])[], options: { ignore?: boolean; onDuplicate?: string } = {}): RawBuilder<unknown> {
  let values = '';
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r]!;
    values += r === 0 ? '(' : ',(';
    for (let c = 0; c < row.length; c++) values += c === 0 ? literal(row[c]!) : `,${literal(row[c]!)}`;
    values += ')';
  }
  const tail = options.onDuplicate !== undefined ? ` ON DUPLICATE KEY UPDATE ${options.onDuplicate}` : '';
  return sql.raw(`INSERT${options.ignore ? ' IGNORE' : ''} INTO ${table} (${columns.join(', ')}) VALUES ${values}${tail}`);
}

/** `col = col + VALUES(col)` for each column: what a row already there gains from the new one. */
export function addValues(columns: readonly string[]): string {
  return columns.map((c) => `${c} = ${c} + VALUES(${c})`).join(', ');
}
