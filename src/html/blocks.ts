/**
 * The document model between main-content detection and the output formats: the main content
 * as typed blocks holding inline runs. Content detection produces it; each format (text,
 * markdown, html, json) renders it; nothing else of the source page reaches a client. PDF
 * extraction (src/pdf) builds the same model from a PDF's layout. Plain
 * data only (no DOM nodes), so it crosses the worker-thread boundary and serialises as JSON.
 */
export type Inline =
  | { type: 'text'; text: string }
  | { type: 'link'; href: string; children: Inline[] }
  | { type: 'emphasis'; strong: boolean; children: Inline[] }
  | { type: 'code'; text: string }
  | { type: 'break' }
  | { type: 'image'; src: string; alt: string };

export interface TableRow {
  header: boolean;
  cells: Inline[][];
}

export type Block =
  | { type: 'heading'; level: 1 | 2 | 3 | 4 | 5 | 6; children: Inline[] }
  | { type: 'paragraph'; children: Inline[] }
  | { type: 'list'; ordered: boolean; items: Block[][] }
  | { type: 'table'; rows: TableRow[] }
  | { type: 'code'; text: string; language: string | null }
  | { type: 'quote'; blocks: Block[] }
  | { type: 'image'; src: string; alt: string; caption: string }
  /**
   * Where page `number` of a paged document (a PDF) starts. Only PDF extraction makes them, and
   * they are rendered only when a request asks for page markers (withoutPageMarkers).
   */
  | { type: 'page'; number: number };

/** The blocks without their page markers: what a request that asked for none gets. */
export function withoutPageMarkers(blocks: readonly Block[]): Block[] {
  return blocks.filter((block) => block.type !== 'page');
}
