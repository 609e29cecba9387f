import { createHash } from 'node:crypto';
import { analysisLanguage } from '../text/analysis-language.js';
import { analyze } from '../text/analyze.js';
import { splitPassages } from '../text/passages.js';
import { simhashBands, type Bands } from '../text/simhash.js';

export interface PrepareDocumentsInput {
  /** language: ISO 639-1 when known; the analysis detects it otherwise. */
  documents: { title: string | null; text: string; language: string | null }[];
}

export interface PreparedPassage {
  text: string;
  /** Index terms in the passage (the document's title counts towards its first passage). */
  length: number;
  /** The distinct terms and their frequencies, parallel arrays. */
  terms: string[];
  tfs: number[];
}

export interface PreparedDocument {
  contentHash: string;
  /** The language the text was analysed in (given, or detected by the analysis). */
  language: string | null;
  passages: PreparedPassage[];
  /** Simhash bands of the whole text (only meaningful when termCount is large enough). */
  bands: Bands;
  termCount: number;
}

/** Terms longer than this are noise (base64, hashes) and would not fit the terms key. */
const MAX_TERM_LENGTH = 100;

/** Pool task: split into passages, analyse, count term frequencies, sign for near-duplicates. */
export function prepareDocuments(input: PrepareDocumentsInput): PreparedDocument[] {
  return input.documents.map(({ title, text, language: given }) => {
    const language = analysisLanguage(`${title ?? ''}\n${text}`, given);
    const titleTerms = title ? analyze(title, language) : [];
    const allTerms: string[] = [];
    const passages = splitPassages(text, language).map((passage, position) => {
      const terms = analyze(passage, language);
      allTerms.push(...terms);
      return count(position === 0 ? [...titleTerms, ...terms] : terms, passage);
    });
    // A document of only a title is still findable by it.
    if (passages.length === 0 && titleTerms.length > 0) passages.push(count(titleTerms, title ?? ''));
    return {
      contentHash: createHash('sha256').update(`${title ?? ''}\n${text}`).digest('hex'),
      language,
      passages,
      bands: simhashBands(allTerms),
      termCount: allTerms.length,
    };
  });
}

function count(terms: readonly string[], text: string): PreparedPassage {
  const tf = new Map<string, number>();
  for (const term of terms) if (term.length <= MAX_TERM_LENGTH) tf.set(term, (tf.get(term) ?? 0) + 1);
  return { text, length: terms.length, terms: [...tf.keys()], tfs: [...tf.values()] };
}
