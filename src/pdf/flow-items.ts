import { median, type Segment } from './page-text.js';
import type { Flow } from './reading-order.js';

/**
 * A flow's lines → lines of text and tables. A table is a run of at least two lines of two or
 * more segments whose segments fall into the same columns (each segment under exactly one
 * column, each column holding one segment per line): what a table looks like when its rules and
 * cells are gone and only the text is left where the cells were.
 */
export interface Line {
  text: string;
  x0: number;
  x1: number;
  y: number;
  size: number;
  font: string;
}

export interface TableItem {
  /** Cell texts, row by row, each row as wide as the table ("" for an empty cell). */
  rows: string[][];
  /** The first row is a header: set in another font or larger than the rest. */
  header: boolean;
}

export type FlowItem = { kind: 'line'; line: Line } | { kind: 'table'; table: TableItem };

/** Lines further apart than this (in ems) are not rows of one table. */
const MAX_ROW_GAP = 3;
/** Two columns whose cells are typically this wide (in ems) are two columns of prose, not a table. */
const PROSE_CELL = 6;
/** A list marker standing apart from its item's text: a bullet, or "1." / "1)". */
const LONE_MARKER = /^(?:[•◦▪▫●○■□‣⁃∙·*]|\d{1,3}[.)])$/u;

export function flowItems(flow: Flow): FlowItem[] {
  const lines = flow.map(attachMarker);
  const items: FlowItem[] = [];
  for (let i = 0; i < lines.length;) {
    const table = lines[i]!.length >= 2 ? tableFrom(lines, i) : null;
    if (table) {
      items.push(...table.items);
      i = table.end;
      continue;
    }
    items.push({ kind: 'line', line: joined(lines[i]!) });
    i++;
  }
  return items;
}

/** A bullet or number set apart from its text (a hanging indent) belongs to the segment after it. */
function attachMarker(line: Segment[]): Segment[] {
  if (line.length < 2 || !LONE_MARKER.test(line[0]!.text)) return line;
  const [marker, text, ...rest] = line as [Segment, Segment, ...Segment[]];
  return [{ ...text, text: `${marker.text} ${text.text}`, x0: marker.x0 }, ...rest];
}

/** A line of several segments read as one: joined by spaces, in its body text's font and size. */
export function joined(line: Segment[]): Line {
  const widest = line.reduce((a, b) => (b.x1 - b.x0 > a.x1 - a.x0 ? b : a));
  return {
    text: line.map((s) => s.text).join(' '),
    x0: Math.min(...line.map((s) => s.x0)),
    x1: Math.max(...line.map((s) => s.x1)),
    y: widest.y,
    size: widest.size,
    font: widest.font,
  };
}

interface Column {
  x0: number;
  x1: number;
}

/**
 * The table starting at line `start`, as items, and the line after it; null when no table
 * starts there. Two columns of long cells are prose set side by side: their lines are returned
 * column by column instead.
 */
function tableFrom(lines: Segment[][], start: number): { items: FlowItem[]; end: number } | null {
  const columns: Column[] = lines[start]!.map((s) => ({ x0: s.x0, x1: s.x1 }));
  const placed: Array<Map<Column, Segment>> = [new Map(lines[start]!.map((s, i) => [columns[i]!, s]))];
  let end = start + 1;
  for (; end < lines.length; end++) {
    const line = lines[end]!;
    const previous = lines[end - 1]!;
    const em = Math.max(median(line.map((s) => s.size)), 1);
    if (line.length < 2 || line[0]!.y - previous[0]!.y > MAX_ROW_GAP * em) break;
    const row = placeRow(line, columns);
    if (!row) break;
    placed.push(row);
  }
  if (placed.length < 2) return null;
  columns.sort((a, b) => a.x0 - b.x0);
  const cells = placed.map((row) => columns.map((column) => row.get(column)?.text ?? ''));
  const segments = placed.flatMap((row) => [...row.values()]);
  const em = median(segments.map((s) => s.size));
  if (columns.length === 2 && median(segments.map((s) => s.x1 - s.x0)) >= PROSE_CELL * em) {
    const side = (column: Column): FlowItem[] => placed.flatMap((row) => {
      const segment = row.get(column);
      return segment ? [{ kind: 'line' as const, line: joined([segment]) }] : [];
    });
    return { items: [...side(columns[0]!), ...side(columns[1]!)], end };
  }
  return { items: [{ kind: 'table', table: { rows: cells, header: isHeader(placed) } }], end };
}

/**
 * The line's segments by column, widening the columns they fall under and adding a column for a
 * segment under none; null when a segment straddles two columns or two share one (not a row of
 * this table).
 */
function placeRow(line: Segment[], columns: Column[]): Map<Column, Segment> | null {
  const row = new Map<Column, Segment>();
  const added: Column[] = [];
  for (const segment of line) {
    const under = columns.filter((c) => segment.x0 < c.x1 && segment.x1 > c.x0);
    if (under.length > 1) return null;
    const column = under[0] ?? { x0: segment.x0, x1: segment.x1 };
    if (row.has(column)) return null;
    if (!under[0]) added.push(column);
    row.set(column, segment);
  }
  for (const [column, segment] of row) {
    column.x0 = Math.min(column.x0, segment.x0);
    column.x1 = Math.max(column.x1, segment.x1);
  }
  columns.push(...added);
  return row;
}

/** The first row is set in a font none of the other rows uses, or larger than they are. */
function isHeader(rows: Array<Map<Column, Segment>>): boolean {
  const [first, ...rest] = rows.map((row) => [...row.values()]);
  const bodyFonts = new Set(rest.flat().map((s) => s.font));
  const bodySize = median(rest.flat().map((s) => s.size));
  return first!.every((s) => !bodyFonts.has(s.font)) || median(first!.map((s) => s.size)) > bodySize * 1.05;
}
