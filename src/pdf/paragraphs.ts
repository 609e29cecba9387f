import type { FlowItem, Line, TableItem } from './flow-items.js';
import type { TypeStats } from './type-stats.js';

/**
 * A page's flows of lines → paragraphs, in reading order. Lines go on in one paragraph until
 * something the eye reads as a paragraph break:
 * - the font size changes;
 * - more space above the line than the document's usual line spacing at that size;
 * - a first-line indent (the line starts right of the flow's left edge, the line before did not);
 * - in justified text, a line before that stops short and ends a sentence;
 * - a list marker (•, 1., 1)) at the start of the line;
 * - a short line in another font alone (a heading set in bold at the body size).
 * At a column change a paragraph goes on only when the line before ends mid-sentence and the next
 * starts in lower case, in the same font and size: a sentence continued at the top of the next
 * column.
 */
export interface Paragraph {
  kind: 'paragraph';
  lines: Line[];
  size: number;
  font: string;
  /**
   * Starts with a list marker: whether it numbers, and its length with the space after it (the
   * marker stays in the text: "1. Introduction" may be a numbered heading rather than an item).
   */
  marker: { ordered: boolean; length: number } | null;
}

export type PageBlock = Paragraph | { kind: 'table'; table: TableItem };

/** Sentence ends, in Latin and CJK punctuation, before closing quotes or brackets. */
const SENTENCE_END = /[.!?:;。！？…]["'”’»)\]]*$/u;
// Not hyphens and dashes: a wrapped line of prose may start with one.
const LIST_MARKER = /^(?:([•◦▪▫●○■□‣⁃∙·*])|(\d{1,3}[.)]))\s+(?=\S)/u;
/** Ems right of the flow's left edge that make a first-line indent. */
const INDENT = 0.8;

export function paragraphs(flows: readonly FlowItem[][], stats: TypeStats): PageBlock[] {
  const blocks: PageBlock[] = [];
  let current: Paragraph | null = null;
  let previous: Line | null = null;
  for (const items of flows) {
    const lines = items.flatMap((item) => (item.kind === 'line' ? [item.line] : []));
    const flow = shape(lines);
    let first = true;
    for (const item of items) {
      if (item.kind === 'table') {
        blocks.push(item);
        current = null;
        previous = null;
        continue;
      }
      const line = item.line;
      if (current && previous && continues(current, previous, line, first, flow, stats)) {
        current.lines.push(line);
      } else {
        current = start(line);
        blocks.push(current);
      }
      previous = line;
      first = false;
    }
  }
  return blocks;
}

interface FlowShape {
  left: number;
  right: number;
  /** Most lines end at the right edge. */
  justified: boolean;
}

function shape(lines: readonly Line[]): FlowShape {
  const left = Math.min(...lines.map((l) => l.x0));
  const right = Math.max(...lines.map((l) => l.x1));
  const full = lines.filter((l) => l.x1 >= right - l.size).length;
  return { left, right, justified: lines.length >= 3 && full >= lines.length * 0.6 };
}

function start(line: Line): Paragraph {
  const marker = LIST_MARKER.exec(line.text);
  return {
    kind: 'paragraph',
    lines: [line],
    size: line.size,
    font: line.font,
    marker: marker ? { ordered: marker[2] !== undefined, length: marker[0].length } : null,
  };
}

function continues(paragraph: Paragraph, before: Line, line: Line, newFlow: boolean, flow: FlowShape, stats: TypeStats): boolean {
  if (LIST_MARKER.test(line.text)) return false;
  if (Math.abs(line.size - before.size) > 0.1 * Math.max(line.size, before.size)) return false;
  if (newFlow) return line.font === before.font && !SENTENCE_END.test(before.text) && /^\p{Ll}/u.test(line.text);
  const em = before.size;
  const advance = line.y - before.y;
  if (advance <= 0 || advance > stats.leading(before.size) * 1.3 + 0.5) return false;
  // A short line alone in its font, not filling the column: a heading set at the body size.
  if (paragraph.lines.length === 1 && line.font !== before.font && before.x1 < flow.right - 5 * em && !/[.,;]$/.test(before.text)) return false;
  // An item's next line is indented to its text, past the marker; one back at the marker's edge ends the list.
  if (paragraph.marker) return line.x0 > paragraph.lines[0]!.x0 + 0.3 * em;
  if (line.x0 > flow.left + INDENT * em && before.x0 <= flow.left + 0.5 * em) return false;
  if (flow.justified && before.x1 < flow.right - 3 * em && SENTENCE_END.test(before.text)) return false;
  return true;
}
