import type { FlowItem } from './flow-items.js';

/**
 * What the document's typesetting is: the body size (the size most characters are set in) and
 * the usual distance between lines at each size, from all its pages. Paragraph breaks and
 * headings are departures from these.
 */
export interface TypeStats {
  bodySize: number;
  /** Usual baseline-to-baseline distance of consecutive lines at this size. */
  leading(size: number): number;
}

/** Fewest line advances at a size from which its line spacing is taken. */
const MIN_ADVANCES = 5;

/** Sizes are compared to the half point. */
const sizeKey = (size: number): number => Math.round(size * 2) / 2;

export function typeStats(pages: ReadonlyArray<readonly FlowItem[][]>): TypeStats {
  const chars = new Map<number, number>();
  const advances = new Map<number, number[]>();
  for (const flows of pages) {
    for (const items of flows) {
      let before: { y: number; size: number } | null = null;
      for (const item of items) {
        if (item.kind !== 'line') {
          before = null;
          continue;
        }
        const { line } = item;
        const key = sizeKey(line.size);
        chars.set(key, (chars.get(key) ?? 0) + line.text.length);
        const advance = before && sizeKey(before.size) === key ? line.y - before.y : 0;
        if (advance > 0 && advance < 3 * line.size) {
          const list = advances.get(key) ?? [];
          list.push(advance);
          advances.set(key, list);
        }
        before = line;
      }
    }
  }
  let bodySize = 0;
  let most = -1;
  for (const [size, count] of chars) {
    if (count > most) {
      bodySize = size;
      most = count;
    }
  }
  // The lower quartile: paragraph gaps lengthen some advances, never shorten them, so the usual
  // line spacing is among the shorter ones as long as a quarter of the advances are within paragraphs.
  const leadings = new Map<number, number>();
  for (const [size, list] of advances) {
    // A few advances (the lines of a title page) say little: such sizes are spaced as the body is.
    if (list.length < MIN_ADVANCES) continue;
    list.sort((a, b) => a - b);
    leadings.set(size, list[Math.floor(list.length / 4)]!);
  }
  const bodyRatio = (leadings.get(bodySize) ?? 1.2 * bodySize) / (bodySize || 1);
  return {
    bodySize,
    leading: (size) => leadings.get(sizeKey(size)) ?? bodyRatio * size,
  };
}
