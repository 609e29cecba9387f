import { normalizeLanguageTag } from './language.js';
import { chunkEnd, isWhitespace, segmenterFor } from './segmenters.js';

/**
 * A text's passages for the index: runs of whole sentences (Intl.Segmenter, granularity
 * "sentence") of about MIN_SIZE..MAX_SIZE size units, where a word counts one unit and a
 * Chinese or Japanese character CJK_UNIT (so 40–120 words, or 100–300 CJK characters).
 *
 * - Sentences are packed greedily in order. A sentence that would take the passage past
 *   MAX_SIZE starts a new passage once the current one has MIN_SIZE units; a passage still
 *   below MIN_SIZE takes it as long as it stays within HARD_SIZE.
 * - Paragraphs (separated by blank lines) end a passage once it has MIN_SIZE units; shorter
 *   paragraphs (headings, list items) join the next one.
 * - A sentence is split only when it alone exceeds HARD_SIZE, then at word boundaries (for
 *   CJK, between characters) into pieces of at most MAX_SIZE units.
 * - Passages are the text's own slices, trimmed; the output is a function of the input alone.
 *
 * Paragraphs longer than SENTENCE_CHUNK characters are segmented chunk by chunk (V8's
 * segmenter slows down on long strings); the last sentence of a chunk may be cut off by the
 * chunk's end, so it is segmented again as the start of the next chunk. A chunk holding a
 * single sentence ends it at the chunk's end: 8,000 characters without a sentence break are
 * far over the hard cap anyway.
 */
const MIN_SIZE = 40;
const MAX_SIZE = 120;
const HARD_SIZE = 200;
const CJK_UNIT = 0.4;
const SENTENCE_CHUNK = 8000;

function isCjkCharacter(code: number): boolean {
  return (code >= 0x3040 && code <= 0x30ff) || (code >= 0x3400 && code <= 0x4dbf) || (code >= 0x4e00 && code <= 0x9fff) || (code >= 0xf900 && code <= 0xfaff);
}

/** The size of text[start, end) in units: words (runs of non-space, non-CJK characters) and CJK characters. */
function measure(text: string, start: number, end: number): number {
  let units = 0;
  let inWord = false;
  for (let i = start; i < end; i++) {
    const code = text.charCodeAt(i);
    if (isWhitespace(code)) inWord = false;
    else if (isCjkCharacter(code)) {
      units += CJK_UNIT;
      inWord = false;
    } else if (!inWord) {
      units++;
      inWord = true;
    }
  }
  return units;
}

/** Paragraphs as [start, end) ranges: text between blank lines (lines of whitespace only). */
function paragraphs(text: string): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  let start = 0;
  let newline = text.indexOf('\n');
  while (newline !== -1) {
    let next = newline + 1;
    while (next < text.length && text[next] !== '\n' && isWhitespace(text.charCodeAt(next))) next++;
    if (next < text.length && text[next] === '\n') {
      ranges.push([start, newline]);
      while (next < text.length && isWhitespace(text.charCodeAt(next))) next++;
      start = next;
    }
    newline = text.indexOf('\n', next);
  }
  ranges.push([start, text.length]);
  return ranges;
}

/** Calls `visit` with the [start, end) range of each sentence of text[start, end). */
function forEachSentence(text: string, start: number, end: number, segmenter: Intl.Segmenter, visit: (start: number, end: number) => void): void {
  let from = start;
  while (from < end) {
    const to = end - from <= SENTENCE_CHUNK ? end : Math.min(end, chunkEnd(text, from, SENTENCE_CHUNK / 2, SENTENCE_CHUNK));
    const sentences: Array<[number, number]> = [];
    for (const { index, segment } of segmenter.segment(text.slice(from, to))) sentences.push([from + index, from + index + segment.length]);
    // Unless the chunk reaches the paragraph's end, its last sentence may go on past it.
    const carried = to < end && sentences.length > 1 ? sentences.pop()! : null;
    for (const [s, e] of sentences) visit(s, e);
    from = carried ? carried[0] : to;
  }
}

/** A text's sentences, trimmed, paragraph by paragraph (what extractive summaries pick from). */
export function splitSentences(text: string, language: string | null): string[] {
  const segmenter = segmenterFor(normalizeLanguageTag(language), 'sentence');
  const sentences: string[] = [];
  for (const [start, end] of paragraphs(text)) {
    forEachSentence(text, start, end, segmenter, (s, e) => {
      const sentence = text.slice(s, e).trim();
      if (sentence) sentences.push(sentence);
    });
  }
  return sentences;
}

export function splitPassages(text: string, language: string | null): string[] {
  const segmenter = segmenterFor(normalizeLanguageTag(language), 'sentence');
  const passages: string[] = [];
  let passageStart = -1;
  let passageEnd = 0;
  let size = 0;

  const flush = (): void => {
    if (passageStart >= 0) {
      const passage = text.slice(passageStart, passageEnd).trim();
      if (passage) passages.push(passage);
    }
    passageStart = -1;
    size = 0;
  };
  const add = (start: number, end: number, units: number): void => {
    if (passageStart >= 0 && size + units > MAX_SIZE && (size >= MIN_SIZE || size + units > HARD_SIZE)) flush();
    if (passageStart < 0) passageStart = start;
    passageEnd = end;
    size += units;
  };
  /** A sentence over HARD_SIZE, in pieces of at most MAX_SIZE units cut where a word or CJK character begins. */
  const addPieces = (start: number, end: number): void => {
    let pieceStart = start;
    let units = 0;
    let inWord = false;
    for (let i = start; i < end; i++) {
      const code = text.charCodeAt(i);
      if (isWhitespace(code)) {
        inWord = false;
        continue;
      }
      const cjk = isCjkCharacter(code);
      if (!cjk && inWord) continue;
      inWord = !cjk;
      // i begins a unit: cut before it when it would overflow the piece.
      const unit = cjk ? CJK_UNIT : 1;
      if (units + unit > MAX_SIZE && i > pieceStart) {
        add(pieceStart, i, units);
        pieceStart = i;
        units = 0;
      }
      units += unit;
    }
    add(pieceStart, end, units);
  };

  for (const [start, end] of paragraphs(text)) {
    forEachSentence(text, start, end, segmenter, (sentenceStart, sentenceEnd) => {
      const units = measure(text, sentenceStart, sentenceEnd);
      if (units > HARD_SIZE) addPieces(sentenceStart, sentenceEnd);
      else if (units > 0) add(sentenceStart, sentenceEnd, units);
    });
    if (size >= MIN_SIZE) flush();
  }
  flush();
  return passages;
}
