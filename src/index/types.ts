/**
 * The contract of the search index: what goes in, what comes out. Every way in (extract,
 * POST /v1/index/documents, crawls) hands documents to a DocumentIndex; search and validate
 * read passages back through retrieve().
 */
import type { Mode } from '../mode.js';
import type { PreparedDocument } from './prepare-documents.js';

export interface IndexDocumentInput {
  url: string;
  title: string | null;
  /** The document's text (already extracted from HTML or Markdown). */
  text: string;
  /** ISO 639-1 code when known; detected from the text otherwise. */
  language: string | null;
  author: string | null;
  publishedAt: Date | null;
  fetchedAt: Date;
  /** Country the document is about or published in (ISO 3166-1 alpha-2), when known. */
  countryHint: string | null;
  /** Prior trust in the source, 0..1, when known (for example from a configured domain list). */
  authority: number | null;
  /**
   * prepareDocuments' analysis of this title, text and language, when the caller has it already
   * (an extraction's cleaning task makes it): the index then does not analyse the text again.
   */
  prepared?: PreparedDocument;
}

export type IndexStatus = 'indexed' | 'replaced' | 'unchanged' | 'duplicate';

export interface IndexOutcome {
  url: string;
  status: IndexStatus;
  documentId: number;
  passages: number;
  /** For a near-duplicate: the document it copies (its passages are still stored and searchable, ranked as one story). */
  duplicateOf: number | null;
}

export interface RetrievedPassage {
  passageId: number;
  documentId: number;
  score: number;
  text: string;
  url: string;
  title: string | null;
  domain: string;
  language: string | null;
  publishedAt: Date | null;
  fetchedAt: Date;
  duplicateOf: number | null;
  /** The document's countryHint and authority as indexed. */
  countryHint: string | null;
  authority: number | null;
  /** Whether this is the document's first passage (position 0), whose BM25 counts the title's terms too. */
  first: boolean;
  /** The whole document's length in analysed terms, title included. */
  documentLength: number;
}

export interface RetrieveOptions {
  limit: number;
  language?: string;
  domains?: { include?: string[]; exclude?: string[] };
  /** Only documents published after this moment; an undated one counts from when it was fetched. */
  publishedAfter?: Date;
}

export interface DocumentIndex {
  /** Indexes documents (of one mode: sandbox documents never mix with live ones); searchable when this resolves. */
  indexDocuments(mode: Mode, documents: readonly IndexDocumentInput[]): Promise<IndexOutcome[]>;
  deleteByUrls(mode: Mode, urls: readonly string[]): Promise<number>;
  /** Deletes the documents of a domain and of its subdomains. */
  deleteByDomain(mode: Mode, domain: string): Promise<number>;
  /** Top passages for a query, best first (BM25 or better). */
  retrieve(mode: Mode, query: string, options: RetrieveOptions): Promise<RetrievedPassage[]>;
  /** How the index weighs a query's terms, for ranking text the index did not score itself. */
  queryWeights(mode: Mode, query: string, language?: string): Promise<QueryWeights>;
  /** retrieve() and queryWeights() (with options.language) from one reading of the statistics and terms: what a search needs of the index. */
  retrieveWeighed(mode: Mode, query: string, options: RetrieveOptions): Promise<{ weights: QueryWeights; passages: RetrievedPassage[] }>;
}

export interface QueryWeights {
  /** The language the query was analysed in (as retrieve() analyses it). */
  language: string | null;
  /** Analysed query term -> its BM25 idf in the index; terms no passage contains are absent. */
  termWeights: Record<string, number>;
  /** Average passage length in index terms (BM25's avgdl); 0 for an empty index. */
  avgPassageLength: number;
  /** Average document length in index terms (title and text); 0 for an empty index. */
  avgDocumentLength: number;
}
