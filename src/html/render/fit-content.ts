import { withoutPageMarkers, type Block } from '../blocks.js';
import { splitSentences } from '../../text/passages.js';
import { countAll, countTokens } from '../../text/tokens.js';
import type { JsonBlock } from './json.js';
import { renderFormat, type OutputFormat } from './render-format.js';
import { renderText } from './text.js';

/**
 * Extraction's content sized for a context window (pool task fitContent): cut to `max_tokens`,
 * or split into chunks of at most `chunking.max_tokens` with their heading paths, for RAG.
 *
 * The content is seen as a sequence of atoms it may be cut between: a paragraph's sentences, a
 * list's items, a table's rows (its header row repeated in every piece), a code block's lines,
 * a quote's blocks, and any other block whole. A piece of a paragraph is a plain paragraph of
 * its sentences (its links and emphasis are not kept); a single atom longer than the room is
 * cut between words. A text's count is that of its rendering in the requested format (the text
 * format's for json), by src/text/tokens.ts.
 */
export interface FitContentInput {
  /** The stored block model as JSON (parsed here, off the worker's event loop). */
  blocksJson: string;
  format: OutputFormat;
  preserveFormatting: boolean;
  language: string | null;
  /** Content within this count, cut at atom bounds. */
  maxTokens?: number;
  /** Content as chunks of at most this count each (their content; the heading path is not counted), cut at headings and atom bounds. */
  chunkTokens?: number;
  /** Keep a PDF's page markers (options.pdf_page_markers); they are left out without. */
  pageMarkers?: boolean;
}

export interface ContentChunk {
  /** The chunk in the requested format: a string, or typed blocks for json. */
  content: string | JsonBlock[];
  /** Texts of the headings the chunk sits under, outermost first (its own section's heading last). */
  heading_path: string[];
  tokens: number;
}

export interface FitContentOutput {
  content?: string | JsonBlock[];
  chunks?: ContentChunk[];
  /** Count of what is returned; of chunks, their contents and heading paths. */
  tokens: number;
  /** Count of the whole content (of all chunks, with their heading paths). */
  fullTokens: number;
}

export function fitContent(input: FitContentInput): FitContentOutput {
  const blocks = JSON.parse(input.blocksJson) as Block[];
  const content = new Content(input.pageMarkers ? blocks : withoutPageMarkers(blocks), input);
  const all = content.atoms(0, content.blocks.length);
  const fullTokens = content.tokens(all);
  if (input.chunkTokens !== undefined) {
    const chunks = content.chunks(input.chunkTokens);
    const counts = chunks.map((c) => c.tokens + countAll(c.heading_path));
    const total = counts.reduce((sum, n) => sum + n, 0);
    // With a budget too, whole chunks from the first while they fit.
    let kept = 0;
    let tokens = 0;
    while (kept < chunks.length && (input.maxTokens === undefined || tokens + counts[kept]! <= input.maxTokens)) tokens += counts[kept++]!;
    return { chunks: chunks.slice(0, kept), tokens, fullTokens: total };
  }
  if (input.maxTokens === undefined || fullTokens <= input.maxTokens) {
    return { content: content.render(all), tokens: fullTokens, fullTokens };
  }
  const kept = content.prefix(all, input.maxTokens);
  return { content: content.render(kept), tokens: content.tokens(kept), fullTokens };
}

/** A place to cut: unit `unit` of block `block`, or a run of its words (`text`) when a unit alone was too long. */
interface Atom {
  block: number;
  unit: number;
  text?: string;
}

/** A block as units it may be cut between, and the block made of units [from, to). */
interface Cuttable {
  units: number;
  build(from: number, to: number): Block;
}

class Content {
  private readonly cuttables: Cuttable[];

  constructor(readonly blocks: readonly Block[], private readonly options: Pick<FitContentInput, 'format' | 'preserveFormatting' | 'language'>) {
    this.cuttables = blocks.map((block) => this.cuttable(block));
  }

  atoms(from: number, to: number): Atom[] {
    const atoms: Atom[] = [];
    for (let block = from; block < to; block++) for (let unit = 0; unit < this.cuttables[block]!.units; unit++) atoms.push({ block, unit });
    return atoms;
  }

  /** The blocks of a run of atoms: consecutive units of one block make one block again. */
  blocksOf(atoms: readonly Atom[]): Block[] {
    const blocks: Block[] = [];
    for (let i = 0; i < atoms.length;) {
      const atom = atoms[i]!;
      if (atom.text !== undefined) {
        blocks.push(paragraph(atom.text));
        i++;
        continue;
      }
      let j = i + 1;
      while (j < atoms.length && atoms[j]!.text === undefined && atoms[j]!.block === atom.block && atoms[j]!.unit === atoms[j - 1]!.unit + 1) j++;
      blocks.push(this.cuttables[atom.block]!.build(atom.unit, atoms[j - 1]!.unit + 1));
      i = j;
    }
    return blocks;
  }

  render(atoms: readonly Atom[]): string | JsonBlock[] {
    return renderFormat(this.blocksOf(atoms), this.options.format, this.options.preserveFormatting);
  }

  tokens(atoms: readonly Atom[]): number {
    if (atoms.length === 0) return 0;
    const blocks = this.blocksOf(atoms);
    return countTokens(this.options.format === 'json'
      ? renderText(blocks, { preserveFormatting: this.options.preserveFormatting })
      : renderFormat(blocks, this.options.format, this.options.preserveFormatting) as string);
  }

  /** The longest run of `atoms` from the first within `budget`; a first atom too long alone is cut between words. */
  prefix(atoms: readonly Atom[], budget: number): Atom[] {
    const length = this.longestFrom(atoms, 0, budget);
    if (length > 0 || atoms.length === 0) return atoms.slice(0, length);
    return this.wordPieces(atoms[0]!, budget).slice(0, 1);
  }

  /** The content in chunks: a heading starts a new one, and each holds as many atoms as fit. */
  chunks(budget: number): ContentChunk[] {
    const chunks: ContentChunk[] = [];
    const path: { level: number; text: string }[] = [];
    let start = 0;
    const section = (end: number) => {
      const atoms = this.atoms(start, end);
      const headingPath = path.map((h) => h.text);
      for (let p = 0; p < atoms.length;) {
        const length = this.longestFrom(atoms, p, budget);
        const pieces = length > 0 ? [atoms.slice(p, p + length)] : this.wordPieces(atoms[p]!, budget).map((piece) => [piece]);
        for (const piece of pieces) {
          const tokens = this.tokens(piece);
          if (tokens > 0) chunks.push({ content: this.render(piece), heading_path: headingPath, tokens });
        }
        p += Math.max(1, length);
      }
    };
    this.blocks.forEach((block, i) => {
      if (block.type !== 'heading') return;
      section(i);
      start = i;
      while (path.length > 0 && path[path.length - 1]!.level >= block.level) path.pop();
      path.push({ level: block.level, text: renderText([block], { preserveFormatting: false }) });
    });
    section(this.blocks.length);
    return chunks;
  }

  /**
   * How many atoms from `from` fit within `budget`: doubling the run until it no longer fits,
   * then halving the gap, so each render stays within about twice the budget.
   */
  private longestFrom(atoms: readonly Atom[], from: number, budget: number): number {
    return longestRun(atoms.length - from, (length) => this.tokens(atoms.slice(from, from + length)) <= budget);
  }

  /** An atom too long for `budget` alone, as runs of its words that each fit (a word longer than the budget alone is a run of its own). */
  private wordPieces(atom: Atom, budget: number): Atom[] {
    const words = renderText(this.blocksOf([atom]), { preserveFormatting: false }).split(/\s+/).filter(Boolean);
    const pieces: Atom[] = [];
    for (let from = 0; from < words.length;) {
      const length = Math.max(1, longestRun(words.length - from, (n) => countTokens(words.slice(from, from + n).join(' ')) <= budget));
      pieces.push({ block: atom.block, unit: atom.unit, text: words.slice(from, from + length).join(' ') });
      from += length;
    }
    return pieces;
  }

  private cuttable(block: Block): Cuttable {
    const wholeOr = (units: number, part: (from: number, to: number) => Block): Cuttable => ({
      units, build: (from, to) => (from === 0 && to === units ? block : part(from, to)),
    });
    switch (block.type) {
      case 'paragraph': {
        const sentences = splitSentences(renderText([block], { preserveFormatting: this.options.preserveFormatting }), this.options.language);
        return wholeOr(Math.max(1, sentences.length), (from, to) => paragraph(sentences.slice(from, to).join(' ')));
      }
      case 'list':
        return wholeOr(block.items.length, (from, to) => ({ ...block, items: block.items.slice(from, to) }));
      case 'table': {
        const header = block.rows[0]?.header ? block.rows.slice(0, 1) : [];
        const rows = block.rows.slice(header.length);
        return wholeOr(Math.max(1, rows.length), (from, to) => ({ type: 'table', rows: [...header, ...rows.slice(from, to)] }));
      }
      case 'code': {
        const lines = block.text.split('\n');
        return wholeOr(lines.length, (from, to) => ({ ...block, text: lines.slice(from, to).join('\n') }));
      }
      case 'quote':
        return wholeOr(block.blocks.length, (from, to) => ({ type: 'quote', blocks: block.blocks.slice(from, to) }));
      default:
        return wholeOr(1, () => block);
    }
  }
}

/**
 * The largest n in 0..available with fits(n), for a condition that holds up to some n and not
 * beyond: doubling n until it fails, then halving the gap, so no test looks at more than about
 * twice what fits.
 */
function longestRun(available: number, fits: (n: number) => boolean): number {
  let low = 0;
  let high = 1;
  while (high <= available && fits(high)) {
    low = high;
    high *= 2;
  }
  high = Math.min(high - 1, available);
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (fits(middle)) low = middle;
    else high = middle - 1;
  }
  return low;
}

function paragraph(text: string): Block {
  return { type: 'paragraph', children: [{ type: 'text', text }] };
}
