import { analyzeQuery } from '../text/analyze.js';
import { analysedSentences, analysedTerms } from '../text/analysed-texts.js';
import { sharedLanguage } from '../text/analysis-language.js';
import { listedAuthority } from './authority-list.js';

export interface SourceCandidate {
  url: string;
  title: string;
  domain: string;
  /** Epoch ms. */
  publishedAt: number | null;
  /** Epoch ms. */
  fetchedAt: number | null;
  /** Upper-case ISO 3166-1 alpha-2 the page declared, if any. */
  country: string | null;
  /** Stored prior trust 0..1 (index_documents.authority), null = unknown. */
  authority: number | null;
  /**
   * Passage texts. For index candidates: the retrieved passages of that document with the
   * index's BM25 score (its retrieval order); for 'upstream' (a search engine's title+snippet)
   * and 'live' (a page fetched now, full text) the score is null. rankSources scores every
   * passage itself, with PASSAGE_BM25, the same way whatever its origin.
   */
  passages: { text: string; score: number | null; first: boolean /* the document's first passage, which the index scores with the title's terms included */ }[];
  /** The whole document's length in analysed terms (title included) as the index counted it; null when not from the index. */
  length: number | null;
  origin: 'index' | 'upstream' | 'live';
  /** The language of a page read live, as its cleaning read it (declared or detected); absent when not known. */
  language?: string | null;
}

export interface RankSourcesInput {
  query: string;
  /** The analysis language the index used for the query; null (an empty index): one detected on the candidates' text. */
  language: string | null;
  /** Analysed query term -> idf in the index (terms unknown to the index are absent: see termWeight). */
  termWeights: Record<string, number>;
  /** The index's average passage length in terms (for BM25 of non-index text). */
  avgPassageLength: number;
  /** The index's average document length in terms (the document feature's avgdl); 0 when unknown. */
  avgDocumentLength: number;
  candidates: SourceCandidate[];
  /** Epoch ms (service clock). */
  now: number;
  /** Freshness counts only when set. */
  recency: 'day' | 'week' | 'month' | 'year' | null;
  /** Upper-case; pages of that country (ccTLD or declared) are favoured, not filtered. */
  country: string | null;
  /** Configured domain-authority list (a domain covers its subdomains), weight 0..1. */
  authority: { domain: string; weight: number }[];
  /** At most this many per domain first, then the held-back ones fill what is left of `limit`; 0 = no cap. */
  maxPerDomain: number;
  limit: number;
  /**
   * The least `anchor` a candidate needs to be ranked at all (RELEVANCE_FLOOR when absent):
   * search's answer leaves out pages that barely speak of the query; validation ranks what the
   * index holds closest to a claim with 0, and lets the stance model say whether it speaks of it.
   */
  floor?: number;
}

export interface RankedSource {
  /** Index into candidates. */
  candidate: number;
  /** The combined ranking score. */
  score: number;
  /** Calibrated probability 0..1 that the source is relevant. */
  confidence: number;
  /** The best-matching passage trimmed at sentence bounds, at most SNIPPET_CHARS characters. */
  snippet: string;
  /** Indices of the candidate's passages, best first (at most 5: search's chunks_per_source). */
  passages: number[];
  /** Candidate indices merged into this one as near-duplicates. */
  duplicates: number[];
}

/**
 * The ranking: relevance = a linear mix of document-level text features, each on a 0..~1
 * scale that does not depend on the query's length (BM25 is divided by the query's maximum
 * attainable BM25, Σ idf (k1 + 1)); the score is relevance times (1 + boosts), so freshness,
 * authority and country reorder relevant pages but never lift a page that does not match.
 */
export interface RankingWeights {
  /** The best passage's BM25. Fixed at 1: the scale of the others is relative to it. */
  best: number;
  /** The further passages' BM25, the second at full weight, each next one halved (not length-normalised: weighs 0, see RANKING_WEIGHTS). */
  further: number;
  /** BM25 of the whole document (title and passages as one text, its length against the index's average document; DOCUMENT_BM25). */
  document: number;
  /** Idf-weighted share of the query's terms in the title. */
  title: number;
  /** Idf-weighted share of the query's terms in the title and the best passage (a text of bounded length). */
  coverage: number;
  /** Idf-weighted share of pairs of query terms within PROXIMITY_WINDOW terms of each other, best passage. */
  proximity: number;
  /** Boost of a page published now (halving with every recency window of age). */
  freshness: number;
  /** Boost per unit of authority (configured list first, stored authority otherwise). */
  authority: number;
  /** Boost of a page of the requested country. */
  country: number;
}

/**
 * Text weights found by coordinate ascent on nDCG@10 of the SciFact TRAIN claims (505 claims
 * with evidence; `bench/search/tune-ranking.js --from-zero` reproduces them): from the best
 * passage alone (the index's order), train nDCG@10 0.8539 → 0.8680. `further` is held at 0 by principle, not by
 * SciFact: it favours long documents (more passages, no length normalisation), which SciFact's
 * abstracts of one length cannot show and collections of mixed lengths pay for; the
 * whole-document BM25, length-normalised, carries its evidence. Coverage and proximity are
 * computed (the confidence uses coverage) but the ascent gives them 0 once the whole-document
 * BM25 weighs 0.6. The
 * boosts have no signal in SciFact (no dates, one domain, no countries): they are set by
 * judgment, small enough that a boost reorders close calls only (a 10 % boost moves a page past
 * one whose text scores up to 10 % better). docs/search.md#ranking has what was measured on
 * other collections.
 */
export const RANKING_WEIGHTS: RankingWeights = {
  best: 1, further: 0, title: 0.2, coverage: 0, proximity: 0, document: 0.6,
  freshness: 0.15, authority: 0.1, country: 0.1,
};

/** Logistic calibration P(relevant) = σ(bias + Σ wᵢ xᵢ) over the features of ConfidenceFeatures. */
export interface Calibration {
  bias: number;
  best: number;
  coverage: number;
  margin: number;
}

/**
 * Logistic regression fitted on the top 10 of the SciFact TRAIN claims with RANKING_WEIGHTS
 * (bench/search/tune-ranking.ts prints the fit and its reliability: expected calibration error
 * 0.012 on train, 0.026 on the test queries). Margin carries most of it: a source far behind
 * the query's best is rarely relevant, whatever its own match.
 */
export const CALIBRATION: Calibration = { bias: -14.758, best: 0.176, coverage: 4.392, margin: 12.511 };

/**
 * The relevance floor: a candidate whose `anchor` (CandidateFeatures) is below it is not
 * returned (with nothing above it, search answers NO_RESULTS_FOUND). Calibrated on development
 * data by bench/search/relevance-floor.ts (docs/search.md, Relevance floor).
 */
export const RELEVANCE_FLOOR = 0.26;
/** The query's heaviest terms whose weight `anchor` is a share of. */
const ANCHOR_TERMS = 5;

/** The query-independent-ish inputs of the confidence. */
export interface ConfidenceFeatures {
  /** Best passage BM25 / the query's maximum attainable BM25. */
  best: number;
  /** Idf share of the query's terms in the title and the best passage. */
  coverage: number;
  /** Score / the best score among the query's candidates. */
  margin: number;
}

export interface Bm25Parameters {
  k1: number;
  b: number;
}

/**
 * The whole-document feature's BM25 constants: Robertson's classic 1.2 and 0.75. On a grid
 * (k1 0.9–2.0, b 0.4–0.75, weights tuned anew for each; tune-ranking.ts --grid) the SciFact
 * TRAIN claims prefer b 0.4 (train nDCG@10 0.8725 against 0.8680), as for passages: abstracts
 * of one length cannot show what weak length normalisation costs where lengths differ (0.021
 * on the development collection in an index mixed with SciFact; docs/search.md#ranking).
 */
export const DOCUMENT_BM25: Readonly<Bm25Parameters> = { k1: 1.2, b: 0.75 };

/**
 * The passage features' BM25 constants (best passage, further passages, snippets of live pages
 * alike): the same classic 1.2 and 0.75, not the index's retrieval constants (0.9 and 0.4,
 * Anserini's, bm25.ts). The stronger length normalisation is chosen by principle: passages of
 * different sources differ in length (SciFact's run to ~100 terms, short encyclopedia entries
 * to ~60), and b 0.4 lets a longer passage win on its length. SciFact's train claims, whose
 * passages are of one length, slightly prefer 0.9 and 0.4 (train nDCG@10 0.8698 against 0.8680);
 * its test queries, the computing collection alone and every mixed index prefer 1.2 and 0.75
 * (docs/search.md#ranking).
 */
export const PASSAGE_BM25: Readonly<Bm25Parameters> = { k1: 1.2, b: 0.75 };

/**
 * The per-domain cap's margin: another domain's result takes a held-back result's place only
 * when it scores at least this share of it. 0.9 puts diversity on the boosts' scale (a 10 %
 * boost moves a page past one whose text scores up to 10 % better): a reordering of close
 * calls, like them.
 */
const DIVERSITY_SHARE = 0.9;
/** Two query terms this many analysed terms apart or closer count as near each other. */
const PROXIMITY_WINDOW = 5;
const SNIPPET_CHARS = 320;
const PASSAGES_LISTED = 5;
/** Containment of word 3-shingles above which one candidate's text is a copy of another's. */
const COPY_CONTAINMENT = 0.9;
/** With the same title, this containment suffices (a snippet against its page's text). */
const SAME_TITLE_CONTAINMENT = 0.5;
/** Fewer shingles than this say too little to call two texts copies. */
const MIN_SHINGLES = 8;
const DAY_MS = 86_400_000;
const RECENCY_MS = { day: DAY_MS, week: 7 * DAY_MS, month: 30 * DAY_MS, year: 365 * DAY_MS };
/** ccTLDs that are not the country's ISO code. */
const CCTLD_COUNTRY: Record<string, string> = { uk: 'GB' };
const TRACKING_PARAMETER = /^(utm_|fbclid$|gclid$|mc_cid$|mc_eid$|ref$)/;

export function rankSources(input: RankSourcesInput): RankedSource[] {
  const texts = input.candidates.flatMap((c) => [c.title, ...c.passages.map((p) => p.text)]);
  const language = sharedLanguage(input.language, texts);
  return rankSourcesWith({ ...input, language }, RANKING_WEIGHTS, CALIBRATION, undefined, true, input.floor ?? RELEVANCE_FLOOR).map(({ features: _features, ...ranked }) => ranked);
}

interface QueryTerms {
  terms: string[];
  weights: number[];
  index: Map<string, number>;
  total: number;
  /** Σ over pairs of query terms of the smaller weight: what proximity is a share of. */
  pairTotal: number;
  maxBm25: number;
  /** Σ of the ANCHOR_TERMS largest weights. */
  anchorTotal: number;
}

/**
 * What the ranking knows of a candidate before weighing: a value for each weight of
 * RankingWeights (text features each a share, 0..~1; boosts 0..1), and what merging copies and
 * writing the snippet need.
 */
export interface CandidateFeatures extends Record<keyof RankingWeights, number> {
  /**
   * The query weight its title and its best PASSAGES_LISTED passages hold (what the source shows,
   * as snippet or chunks), as a share of the weight of the query's ANCHOR_TERMS heaviest terms
   * (at most 1): coverage that a long query does not dilute. The relevance floor compares it.
   */
  anchor: number;
  /** The candidate's passages by BM25, best first. */
  passageOrder: number[];
  urlKey: string;
  titleKey: string;
  shingles: Set<number>;
}

interface Scored {
  candidate: number;
  score: number;
  features: CandidateFeatures;
  confidence: ConfidenceFeatures;
}

/**
 * rankSources with explicit weights and calibration. `features` (candidateFeatures, the text
 * analysis: most of the cost) may be passed in, so the tuning bench analyses each query once;
 * `snippets: false` leaves snippets empty (the rest of the cost), for the bench's many rankings.
 */
export function rankSourcesWith(
  input: RankSourcesInput, weights: RankingWeights, calibration: Calibration, features: CandidateFeatures[] = candidateFeatures(input), snippets = true,
  floor = RELEVANCE_FLOOR,
): (RankedSource & { features: ConfidenceFeatures })[] {
  if (input.limit <= 0 || input.candidates.length === 0) return [];
  const scored: Scored[] = features.flatMap((f, candidate) => {
    // Below the floor a source is not worth returning, whatever else the index holds.
    if (f.anchor < floor) return [];
    const relevance = weights.best * f.best + weights.further * f.further + weights.document * f.document + weights.title * f.title
      + weights.coverage * f.coverage + weights.proximity * f.proximity;
    const score = relevance * (1 + weights.freshness * f.freshness + weights.authority * f.authority + weights.country * f.country);
    return [{ candidate, score, features: f, confidence: { best: f.best, coverage: f.coverage, margin: 0 } }];
  });
  if (scored.length === 0) return [];
  scored.sort((a, b) => b.score - a.score || a.candidate - b.candidate);
  const top = scored[0]!.score;
  const kept: { entry: Scored; duplicates: number[] }[] = [];
  for (const entry of scored) {
    entry.confidence.margin = top > 0 ? entry.score / top : 0;
    const original = kept.find((k) => isDuplicate(k.entry.features, entry.features));
    if (original) original.duplicates.push(entry.candidate);
    else kept.push({ entry, duplicates: [] });
  }
  const query = snippets ? queryTerms(input) : undefined;
  return diversify(kept, input.maxPerDomain, input.limit, (k) => input.candidates[k.entry.candidate]!.domain, (k) => k.entry.score).map(({ entry, duplicates }) => ({
    candidate: entry.candidate,
    score: entry.score,
    confidence: confidence(entry.confidence, calibration),
    snippet: query ? snippet(input.candidates[entry.candidate]!.passages[entry.features.passageOrder[0]!]?.text ?? '', input.language, query) : '',
    passages: entry.features.passageOrder.slice(0, PASSAGES_LISTED),
    duplicates,
    features: entry.confidence,
  }));
}

/** The features of every candidate (in candidate order). */
export function candidateFeatures(input: RankSourcesInput, documentBm25: Bm25Parameters = DOCUMENT_BM25): CandidateFeatures[] {
  const query = queryTerms(input);
  return input.candidates.map((candidate) => featuresOf(input, query, candidate, documentBm25));
}

/**
 * The query's distinct analysed terms and their weights. A term the index has never seen is
 * at least as rare as its rarest known term: it gets the highest known idf (1 when the index
 * knows none of them; every feature is a share of the query's total, so the scale cancels).
 */
function queryTerms(input: RankSourcesInput): QueryTerms {
  const terms = [...new Set(analyzeQuery(input.query, input.language))];
  const known = terms.map((t) => input.termWeights[t]).filter((w): w is number => w !== undefined);
  const unknown = known.length > 0 ? Math.max(...known) : 1;
  const weights = terms.map((t) => input.termWeights[t] ?? unknown);
  let pairTotal = 0;
  for (let a = 0; a < terms.length; a++) for (let b = a + 1; b < terms.length; b++) pairTotal += Math.min(weights[a]!, weights[b]!);
  const total = weights.reduce((sum, w) => sum + w, 0);
  const anchorTotal = [...weights].sort((a, b) => b - a).slice(0, ANCHOR_TERMS).reduce((sum, w) => sum + w, 0);
  return { terms, weights, index: new Map(terms.map((t, i) => [t, i])), total, pairTotal, maxBm25: total * (PASSAGE_BM25.k1 + 1), anchorTotal };
}

function featuresOf(input: RankSourcesInput, query: QueryTerms, candidate: SourceCandidate, documentBm25: Bm25Parameters): CandidateFeatures {
  const titleTerms = candidate.title ? analysedTerms(candidate.title, input.language) : [];
  const titleTf = queryTf(titleTerms, query);
  let titleShare = 0;
  for (const q of titleTf.keys()) titleShare += query.weights[q]!;
  const matched = new Set<number>(titleTf.keys());
  const bm25: number[] = [];
  const matchedIn: Iterable<number>[] = [];
  let proximity = 0;
  // The document's query term frequencies and length, title and passages as one text (merged
  // in text order, so BM25 sums its terms in the order a scan of the whole text meets them).
  const documentTf = new Map(titleTf);
  let documentLength = titleTerms.length;
  const hashes = [termHashes(titleTerms)];
  for (const passage of candidate.passages) {
    const terms = analysedTerms(passage.text, input.language);
    const tf = queryTf(terms, query);
    matchedIn.push(tf.keys());
    addTf(documentTf, tf);
    documentLength += terms.length;
    hashes.push(termHashes(terms));
    // The first passage counts the title's terms, as the index counts them.
    bm25.push(passage.first
      ? passageBm25(addTf(new Map(titleTf), tf), query, input.avgPassageLength, titleTerms.length + terms.length)
      : passageBm25(tf, query, input.avgPassageLength, terms.length));
    proximity = Math.max(proximity, nearPairs(terms, query));
  }
  const passageOrder = bm25.map((_s, i) => i).sort((a, b) => bm25[b]! - bm25[a]! || a - b);
  const norm = query.maxBm25 > 0 ? 1 / query.maxBm25 : 0;
  let further = 0;
  for (let i = 1; i < passageOrder.length; i++) further += bm25[passageOrder[i]!]! * norm * 0.5 ** (i - 1);
  // Coverage of the title and the best passage: a text of bounded length, so a long document
  // does not cover more of the query merely by having more words.
  for (const q of matchedIn[passageOrder[0]!] ?? []) matched.add(q);
  let coverage = 0;
  for (const q of matched) coverage += query.weights[q]!;
  // The floor's anchor reads the title and the passages the source can bring (its best
  // PASSAGES_LISTED, as chunks): a page speaks of a query if what it shows holds its terms, not
  // only its single best passage.
  const shown = new Set(matched);
  for (const p of passageOrder.slice(1, PASSAGES_LISTED)) for (const q of matchedIn[p]!) shown.add(q);
  let shownWeight = 0;
  for (const q of shown) shownWeight += query.weights[q]!;
  const share = (x: number, total: number) => (total > 0 ? x / total : 0);
  return {
    best: (bm25[passageOrder[0]!] ?? 0) * norm, further,
    document: wholeDocument(documentTf, documentLength, candidate, query, input, documentBm25), title: share(titleShare, query.total), coverage: share(coverage, query.total),
    proximity: share(proximity, query.pairTotal), anchor: Math.min(1, share(shownWeight, query.anchorTotal)),
    freshness: freshness(input, candidate), authority: authority(input, candidate), country: countryMatch(input, candidate),
    passageOrder, urlKey: urlKey(candidate.url), titleKey: words(candidate.title).join(' '),
    shingles: shingles(hashes),
  };
}

/** The frequency of each query term (by its index in the query) in analysed terms, in the order the terms first occur. */
function queryTf(terms: readonly string[], query: QueryTerms): Map<number, number> {
  const tf = new Map<number, number>();
  for (const term of terms) {
    const q = query.index.get(term);
    if (q !== undefined) tf.set(q, (tf.get(q) ?? 0) + 1);
  }
  return tf;
}

/** Adds `more` (the frequencies of a text that follows) into `tf`, which it returns. */
function addTf(tf: Map<number, number>, more: ReadonlyMap<number, number>): Map<number, number> {
  for (const [q, f] of more) tf.set(q, (tf.get(q) ?? 0) + f);
  return tf;
}

/**
 * BM25 of the whole document over the query's maximum: term frequencies from the text at hand
 * (an index candidate brings every passage that matches the query), its length as the index
 * counted it against the index's average document; without those, the text at hand against
 * as many average passages.
 */
function wholeDocument(
  tf: ReadonlyMap<number, number>, lengthAtHand: number, candidate: SourceCandidate, query: QueryTerms, input: RankSourcesInput, { k1, b }: Bm25Parameters,
): number {
  const max = query.total * (k1 + 1);
  if (max <= 0) return 0;
  const score = candidate.length !== null && input.avgDocumentLength > 0
    ? passageBm25(tf, query, input.avgDocumentLength, candidate.length, k1, b)
    : passageBm25(tf, query, input.avgPassageLength * Math.max(1, candidate.passages.length), lengthAtHand, k1, b);
  return score / max;
}

/** BM25 of a text's query term frequencies (queryTf) and length; by default PASSAGE_BM25's constants. */
function passageBm25(tf: ReadonlyMap<number, number>, query: QueryTerms, avgLength: number, length: number, k1 = PASSAGE_BM25.k1, b = PASSAGE_BM25.b): number {
  // Without index statistics the passage is its own average: no length normalisation.
  const lengthRatio = avgLength > 0 ? length / avgLength : 1;
  let score = 0;
  for (const [q, f] of tf) score += query.weights[q]! * (f * (k1 + 1)) / (f + k1 * (1 - b + b * lengthRatio));
  return score;
}

/** Σ over pairs of distinct query terms occurring within PROXIMITY_WINDOW of each other of the pair's smaller weight. */
function nearPairs(terms: readonly string[], query: QueryTerms): number {
  const n = query.terms.length;
  if (n < 2) return 0;
  const last = new Array<number>(n).fill(-Infinity);
  const seen = new Set<number>();
  let sum = 0;
  terms.forEach((term, position) => {
    const a = query.index.get(term);
    if (a === undefined) return;
    for (let b = 0; b < n; b++) {
      if (b === a || position - last[b]! > PROXIMITY_WINDOW) continue;
      const pair = Math.min(a, b) * n + Math.max(a, b);
      if (seen.has(pair)) continue;
      seen.add(pair);
      sum += Math.min(query.weights[a]!, query.weights[b]!);
    }
    last[a] = position;
  });
  return sum;
}

/** 1 for a page published now, halving with every recency window of age; 0 without recency or without a date. */
function freshness(input: RankSourcesInput, candidate: SourceCandidate): number {
  if (!input.recency || candidate.publishedAt === null) return 0;
  return 0.5 ** (Math.max(0, input.now - candidate.publishedAt) / RECENCY_MS[input.recency]);
}

/** The configured weight of the most specific listed domain covering the candidate's, else its stored authority, else 0. */
function authority(input: RankSourcesInput, candidate: SourceCandidate): number {
  return Math.min(1, Math.max(0, listedAuthority(candidate.domain, input.authority) ?? candidate.authority ?? 0));
}

function countryMatch(input: RankSourcesInput, candidate: SourceCandidate): number {
  if (!input.country) return 0;
  if (candidate.country === input.country) return 1;
  const tld = candidate.domain.toLowerCase().split('.').pop() ?? '';
  return tld.length === 2 && (CCTLD_COUNTRY[tld] ?? tld.toUpperCase()) === input.country ? 1 : 0;
}

function confidence(features: ConfidenceFeatures, c: Calibration): number {
  return 1 / (1 + Math.exp(-(c.bias + c.best * features.best + c.coverage * features.coverage + c.margin * features.margin)));
}

/** The same page under another spelling of its URL: no scheme, "www.", fragment, tracking parameters or trailing slash. */
function urlKey(url: string): string {
  try {
    const parsed = new URL(url);
    const parameters = [...parsed.searchParams].filter(([name]) => !TRACKING_PARAMETER.test(name.toLowerCase())).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const search = parameters.length > 0 ? `?${new URLSearchParams(parameters).toString()}` : '';
    return `${parsed.hostname.replace(/^www\./, '')}${parsed.pathname.replace(/\/+$/, '')}${search}`;
  } catch {
    return url;
  }
}

function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/**
 * Hashed 3-shingles of the document's analysed terms (title and passages as one sequence, as
 * already analysed for the features): copies differ in punctuation and case, which analysis has
 * removed anyway.
 */
function shingles(parts: readonly Uint32Array[]): Set<number> {
  let length = 0;
  for (const part of parts) length += part.length;
  const hashes = new Uint32Array(length);
  let at = 0;
  for (const part of parts) {
    hashes.set(part, at);
    at += part.length;
  }
  const out = new Set<number>();
  for (let i = 0; i + 2 < hashes.length; i++) out.add((Math.imul(hashes[i]!, 0x9e3779b1) ^ Math.imul(hashes[i + 1]!, 0x85ebca6b) ^ hashes[i + 2]!) >>> 0);
  return out;
}

/** Each term's hash, kept with the analysed terms they were computed from (analysedTerms remembers those). */
const hashesOfTerms = new WeakMap<readonly string[], Uint32Array>();

function termHashes(terms: readonly string[]): Uint32Array {
  let hashes = hashesOfTerms.get(terms);
  if (!hashes) {
    hashes = new Uint32Array(terms.length);
    for (let i = 0; i < terms.length; i++) hashes[i] = fnv1a(terms[i]!);
    hashesOfTerms.set(terms, hashes);
  }
  return hashes;
}

function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let j = 0; j < text.length; j++) h = Math.imul(h ^ text.charCodeAt(j), 0x01000193);
  return h >>> 0;
}

/** Verdicts per pair of feature objects: the tuning bench ranks the same candidates thousands of times. */
const duplicateVerdicts = new WeakMap<CandidateFeatures, Map<CandidateFeatures, boolean>>();

function isDuplicate(a: CandidateFeatures, b: CandidateFeatures): boolean {
  let verdicts = duplicateVerdicts.get(a);
  if (!verdicts) duplicateVerdicts.set(a, (verdicts = new Map()));
  let verdict = verdicts.get(b);
  if (verdict === undefined) verdicts.set(b, (verdict = copies(a, b)));
  return verdict;
}

function copies(a: CandidateFeatures, b: CandidateFeatures): boolean {
  if (a.urlKey === b.urlKey) return true;
  const [small, large] = a.shingles.size <= b.shingles.size ? [a.shingles, b.shingles] : [b.shingles, a.shingles];
  if (small.size < MIN_SHINGLES) return false;
  const needed = a.titleKey !== '' && a.titleKey === b.titleKey ? SAME_TITLE_CONTAINMENT : COPY_CONTAINMENT;
  // Most pairs are no copies: stop as soon as too many shingles are missing to reach `needed`.
  const allowedMisses = Math.floor(small.size * (1 - needed) + 1e-9);
  let misses = 0;
  for (const s of small) if (!large.has(s) && ++misses > allowedMisses) return false;
  return true;
}

/**
 * At most maxPerDomain per domain in score order, as long as the places go to comparable
 * results: a result held back by the cap keeps its place ahead of another domain's result
 * scoring less than DIVERSITY_SHARE of its own, so the cap picks among close calls and never
 * brings in a much weaker page. Places still free go to the held-back ones in score order.
 * The result is in score order.
 */
function diversify<T>(ranked: T[], maxPerDomain: number, limit: number, domainOf: (t: T) => string, scoreOf: (t: T) => number): T[] {
  if (maxPerDomain <= 0) return ranked.slice(0, limit);
  const perDomain = new Map<string, number>();
  const picked = new Set<number>();
  const held: number[] = [];
  for (let i = 0; i < ranked.length && picked.size < limit; i++) {
    const domain = domainOf(ranked[i]!).toLowerCase();
    const count = perDomain.get(domain) ?? 0;
    if (count >= maxPerDomain) {
      held.push(i);
      continue;
    }
    while (held.length > 0 && picked.size < limit && scoreOf(ranked[i]!) < DIVERSITY_SHARE * scoreOf(ranked[held[0]!]!)) picked.add(held.shift()!);
    if (picked.size >= limit) break;
    perDomain.set(domain, count + 1);
    picked.add(i);
  }
  for (let i = 0; i < ranked.length && picked.size < limit; i++) picked.add(i);
  return ranked.filter((_e, i) => picked.has(i));
}

/**
 * The passage's best sentence (most query idf mass; the earlier on a tie) with its neighbours
 * (next first) as long as the whole stays within SNIPPET_CHARS. A single sentence longer than
 * that is cut at the last word boundary that fits, with an ellipsis.
 */
function snippet(text: string, language: string | null, query: QueryTerms): string {
  const { sentences, terms } = analysedSentences(text, language);
  if (sentences.length === 0) return '';
  const mass = terms.map((sentenceTerms) => {
    let sum = 0;
    for (const term of new Set(sentenceTerms)) {
      const q = query.index.get(term);
      if (q !== undefined) sum += query.weights[q]!;
    }
    return sum;
  });
  const best = mass.reduce((bestIndex, m, i) => (m > mass[bestIndex]! ? i : bestIndex), 0);
  let from = best;
  let to = best;
  let length = sentences[best]!.length;
  for (let grew = true; grew; ) {
    grew = false;
    if (to + 1 < sentences.length && length + 1 + sentences[to + 1]!.length <= SNIPPET_CHARS) {
      length += 1 + sentences[++to]!.length;
      grew = true;
    }
    if (from > 0 && length + 1 + sentences[from - 1]!.length <= SNIPPET_CHARS) {
      length += 1 + sentences[--from]!.length;
      grew = true;
    }
  }
  const joined = sentences.slice(from, to + 1).join(' ');
  if (joined.length <= SNIPPET_CHARS) return joined;
  const cut = joined.lastIndexOf(' ', SNIPPET_CHARS - 1);
  return `${joined.slice(0, cut > 0 ? cut : SNIPPET_CHARS - 1).trimEnd()}…`;
}
