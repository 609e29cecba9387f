/**
 * The citation rule of search summaries, enforced on a model's answer: every sentence carries at
 * least one citation [n], and every n is one of the passages the model was given. A sentence
 * that breaks the rule is dropped, never repaired: an uncited sentence may come from the model's
 * own knowledge, and one citing a passage that does not exist would point at no returned source.
 */
export interface CitedSentence {
  /** The sentence without its citation markers. */
  readonly text: string;
  /** Passage numbers in the order cited, each once. */
  readonly citations: readonly number[];
}

export interface CitationCheck {
  readonly sentences: CitedSentence[];
  /** Sentences removed for breaking the rule (or cut off by the token limit). */
  readonly dropped: number;
}

/** [1], [1, 2], [1; 3], [2-4]; one sentence may carry several groups: [1][2]. */
const CITATION_GROUP = /\[\s*\d+(?:\s*[-–]\s*\d+)?(?:\s*[,;]\s*\d+(?:\s*[-–]\s*\d+)?)*\s*\]/g;
/** Citations with what separates them ("[2], [3]"): one sentence's run of markers. */
const RUN = `\\s*${CITATION_GROUP.source}(?:\\s*[,;]?\\s*${CITATION_GROUP.source})*`;
const CITATION_RUN = new RegExp(RUN, 'g');
const LEADING_RUN = new RegExp(`^(?:${RUN})?`);
const TRAILING_RUN = new RegExp(`(?:${RUN})$`);
/** Sentence-final punctuation, with closing quotes; CJK full stops need no space after them. */
const SENTENCE_END = /[.!?]+["'”’)]*|[。！？]+/g;
const CJK_END = /[。！？]/;
const TRAILING_END = /([.!?]+["'”’)]*|[。！？]+)$/;
/** Words whose full stop ends no sentence ("Smith et al. found"). */
const ABBREVIATIONS = new Set(['e.g', 'i.e', 'vs', 'al', 'cf', 'ca', 'approx', 'fig', 'dr', 'mr', 'mrs', 'ms', 'prof']);
/** A range wider than this is no citation a model means: [1-1000] would cite every passage. */
const MAX_RANGE = 20;

/**
 * Splits the answer into sentences and keeps those that obey the rule.
 * @param truncated the answer hit the token limit: its unfinished last sentence is dropped.
 */
export function checkCitations(answer: string, allowed: ReadonlySet<number>, truncated: boolean): CitationCheck {
  const pieces = blocks(answer).flatMap(splitSentences);
  let dropped = 0;
  if (truncated && pieces.length > 0 && !isFinished(pieces[pieces.length - 1]!)) {
    pieces.pop();
    dropped += 1;
  }
  const sentences: CitedSentence[] = [];
  for (const piece of pieces) {
    const sentence = citedSentence(piece, allowed);
    if (sentence) sentences.push(sentence);
    else dropped += 1;
  }
  return { sentences, dropped };
}

/**
 * A sentence's own text with every bracketed group that reads as a citation ("74 [14] years",
 * a page's footnote "[3, 4]") in parentheses instead: in a cited summary, [n] means sources[n-1]
 * and nothing else. Sentences a model writes have their groups removed as citations already;
 * sentences taken from the sources carry the sources' own brackets.
 */
export function withoutCitationMarks(text: string): string {
  return text.replace(CITATION_GROUP, (group) => `(${group.slice(1, -1)})`);
}

/** The sentences as text, each one's citations as [n][m] before its final punctuation. */
export function renderCited(sentences: readonly CitedSentence[]): string {
  return sentences.map(renderSentence).join(' ');
}

function renderSentence(sentence: CitedSentence): string {
  const marks = sentence.citations.map((n) => `[${n}]`).join('');
  if (marks === '') return sentence.text;
  const end = TRAILING_END.exec(sentence.text);
  // A bullet item has no full stop; in running text it needs one.
  if (!end) return `${sentence.text} ${marks}.`;
  const body = sentence.text.slice(0, end.index).trimEnd();
  return `${body}${CJK_END.test(end[1]!) ? '' : ' '}${marks}${end[1]}`;
}

const LIST_ITEM = /^\s*(?:[-*•]|\d+[.)])\s+/;
const HEADING = /^\s*#{1,6}\s+/;

/**
 * Paragraphs, list items and headings, each on one line: lists and headings are not asked for,
 * but a bullet item is still a sentence, and a sentence wrapped over two lines stays one.
 * Whitespace is collapsed, which also keeps the citation patterns' backtracking short.
 */
function blocks(answer: string): string[] {
  const found: string[] = [];
  let current: string[] = [];
  const flush = (): void => {
    const block = current.join(' ').replace(/\s+/g, ' ').trim();
    if (block !== '') found.push(block);
    current = [];
  };
  for (const line of answer.split('\n')) {
    if (line.trim() === '' || LIST_ITEM.test(line) || HEADING.test(line)) flush();
    current.push(line.replace(LIST_ITEM, '').replace(HEADING, ''));
    if (HEADING.test(line)) flush();
  }
  flush();
  return found;
}

function splitSentences(line: string): string[] {
  const sentences: string[] = [];
  let start = 0;
  for (const match of line.matchAll(SENTENCE_END)) {
    let stop = match.index + match[0].length;
    // "… found it. [2]" — citations after the full stop belong to the sentence before them.
    stop += LEADING_RUN.exec(line.slice(stop))![0].length;
    if (!CJK_END.test(match[0])) {
      if (stop < line.length && !/\s/.test(line[stop]!)) continue; // 3.5, example.com
      if (ABBREVIATIONS.has(lastWord(line.slice(start, match.index)))) continue;
    }
    sentences.push(line.slice(start, stop).trim());
    start = stop;
  }
  sentences.push(line.slice(start).trim());
  return sentences.filter((sentence) => sentence !== '');
}

function lastWord(text: string): string {
  return (/([^\s(]+)$/.exec(text)?.[1] ?? '').toLowerCase();
}

function isFinished(sentence: string): boolean {
  return TRAILING_RUN.test(sentence) || TRAILING_END.test(sentence);
}

function citedSentence(piece: string, allowed: ReadonlySet<number>): CitedSentence | undefined {
  const citations: number[] = [];
  for (const group of piece.match(CITATION_GROUP) ?? []) {
    const numbers = numbersOf(group);
    if (!numbers || numbers.some((n) => !allowed.has(n))) return undefined;
    for (const n of numbers) if (!citations.includes(n)) citations.push(n);
  }
  const text = piece
    .replace(CITATION_RUN, '')
    .replace(/\s+([.,;:!?。！？])/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
  if (citations.length === 0 || !/[\p{L}\p{N}]/u.test(text)) return undefined;
  return { text, citations };
}

/** The numbers of one [..] group, ranges expanded; undefined for a range that cannot be meant. */
function numbersOf(group: string): number[] | undefined {
  const numbers: number[] = [];
  for (const item of group.slice(1, -1).split(/[,;]/)) {
    const [from, to = from] = item.split(/[-–]/).map((part) => Number(part.trim()));
    if (from === undefined || to === undefined || to < from || to - from > MAX_RANGE) return undefined;
    for (let n = from; n <= to; n += 1) numbers.push(n);
  }
  return numbers;
}
