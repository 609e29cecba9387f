/**
 * Highlights of a page read for a client that names no search (Exa's contents): its paragraphs
 * that share the most terms with a query, best first, in the order of the page among equals.
 */
import { analyze, analyzeQuery } from '../text/analyze.js';

export interface Highlight {
  text: string;
  /** The share of the query's terms the paragraph holds, 0 to 1. */
  score: number;
}

/**
 * Up to `count` paragraphs of `text` (separated by blank lines), each cut to `maxCharacters`.
 * Without a query, the first paragraphs, scored 1: nothing ranks them.
 */
export function highlightsOf(text: string, query: string | undefined, language: string | null, count: number, maxCharacters: number): Highlight[] {
  const paragraphs = text.split(/\n\s*\n/).map((p) => p.trim()).filter((p) => p.length > 0);
  const cut = (h: Highlight): Highlight => ({ ...h, text: h.text.slice(0, maxCharacters) });
  if (query === undefined) return paragraphs.slice(0, count).map((p) => cut({ text: p, score: 1 }));
  const terms = new Set(analyzeQuery(query, language));
  if (terms.size === 0) return [];
  return paragraphs
    .map((p, position) => {
      const own = new Set(analyze(p, language));
      return { text: p, position, score: [...terms].filter((t) => own.has(t)).length / terms.size };
    })
    .filter((p) => p.score > 0)
    .sort((a, b) => b.score - a.score || a.position - b.position)
    .slice(0, count)
    .map((p) => cut({ text: p.text, score: p.score }));
}
