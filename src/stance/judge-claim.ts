import { analyze } from '../text/analyze.js';
import { sharedLanguage } from '../text/analysis-language.js';
import { splitSentences } from '../text/passages.js';
import { hammingDistance, simhashBands } from '../text/simhash.js';
import { causeStatements } from './causes.js';
import { cuesOf, deniedBeliefs, lowered, onlyReports, reportsOf, restates, statesFigures } from './cues.js';
import { analyseClaim, answersAnotherCause, contentCoverage, FEATURES, namesAnother, namesAnotherCause, pairFeatures, saysOpposite, sourceCoverage } from './features.js';
import { checkModel, stanceProbabilities, type Stance } from './model.js';
import { CONFIDENCE_CALIBRATION, STANCE_MODEL, VERDICT_THRESHOLDS } from './model-weights.js';
import { calibrated, claimVerdict, HEDGED_WEIGHT, type ClaimVerdict } from './verdict.js';
import { commonWording } from './wordings.js';

const MODEL = checkModel(STANCE_MODEL);
const COVERAGE = FEATURES.indexOf('coverage');
/** The coverage when the sentence's quantities conflict with the claim's, else 0. */
const NUMBER_CONFLICT = FEATURES.indexOf('number conflict');

/**
 * Sources of one ranking the verdict is drawn from: the first ones in its order (the index's
 * ranking of the claim, an engine's results, the index's documents of a domain the client named),
 * as many as the thresholds were chosen for (bench/validate/train-stance.ts judges training
 * claims on the top 3 abstracts of a BM25 ranking): further down a ranking, documents are less
 * and less about the claim, and one of them holding a sentence that reads like a side would
 * decide against the better-ranked ones. Pages the client named by URL are no ranking's: the
 * client chose every one of them, and each may decide. Every source still gets its own stance
 * as an evidence item.
 */
export const VERDICT_SOURCES = 3;
/**
 * What a source weighs in the verdict for each place it stands below the first of its ranking
 * (the second 0.7, the third 0.49): its sentences' probabilities of taking a side are scaled by
 * it, so that a lower-ranked document decides only with a clear sentence (0.55 / 0.7 = 0.79),
 * since it is less likely to be about the claim at all. Through the API on SciFact's training
 * claims without sources: 0.565 with every place weighing alike, 0.572 at 0.9, 0.579 at 0.8,
 * 0.583 from 0.7 down to the first alone deciding; the largest weight of that plateau was
 * taken, so that a clear finding further down still counts (docs/validation.md).
 */
export const RANK_DISCOUNT = 0.7;

/** A sentence's stance probabilities with its side taken at `weight`, the rest neutral. */
export function discounted([support, contradiction]: readonly number[], weight: number): number[] {
  return [support! * weight, contradiction! * weight, 1 - weight * (support! + contradiction!)];
}

/**
 * Coverage from which a sentence that gives the claim's quantity another value ("330 metres" for
 * "120 metres", 1889 for 1925) contradicts the claim whatever the model says: the training
 * claims hold too few such cases for the model to learn it, yet a sentence about the same thing
 * that states another value is the plainest contradiction there is.
 */
const QUANTITY_CONFLICT_COVERAGE = 0.6;

/**
 * Coverage from which a sentence restates the claim (nearly all of its terms by weight, its
 * direction words aside, so that "increases" can restate "decreases" reversed): then whether
 * it speaks of the claim is settled, and the cues say which way. Its probability of taking a
 * side (supports plus contradicts) goes to support when it says the same (cues.ts, restates),
 * else to contradiction. In the long sentences of the training abstracts a negation or a
 * direction word often belongs to another clause, so the model trusts those cues little; in a
 * restatement they can only bear on the claim, and "is not visible" against "is visible" is no
 * half-contradiction.
 */
const RESTATEMENT_COVERAGE = 0.9;
/**
 * At most this many times the claim's terms: a restatement says the claim and little else. A
 * long sentence that happens to hold all of the claim's words (common in abstracts) has
 * negations and direction words of its own clauses, which the rule would misread.
 */
const RESTATEMENT_LENGTH = 2;
/**
 * At most this many times the claim's terms for a sentence that names another thing in the
 * claim's place (namesAnother): a name is no cue that drifts from its clause as a negation or a
 * direction word does, and a sentence that places the claim's subject elsewhere usually says
 * where in a clause or two more ("on the Champ de Mars in Paris, France").
 */
const NAMES_ANOTHER_LENGTH = 3;

const HEDGED = FEATURES.indexOf('sentence hedged');
/**
 * Coverage from which a short sentence that turns the claim around where the cues bear on its
 * terms (cue-scopes.ts: a direction word beside what the claim's move pointing the other way, a
 * negation before its terms where the claim has none, or none where it has one; or another
 * value of one of the claim's quantities, cues.ts) contradicts it:
 * a paraphrase short of a restatement, in a sentence short enough (RESTATEMENT_LENGTH) that the
 * cue cannot belong to another clause. Its probability of taking a side goes to contradiction.
 */
const ALIGNED_COVERAGE = 0.6;
/** The coverage when a hedge bears on the claim's terms ("may [lower] blood pressure"), else 0. */
const HEDGE_BESIDE = FEATURES.indexOf('hedge beside claim terms');
const ALIGNED_OPPOSED = FEATURES.indexOf('direction mismatch beside claim terms');
const ALIGNED_AGREED = FEATURES.indexOf('direction agreement beside claim terms');
const NEGATION_BESIDE = FEATURES.indexOf('negation mismatch beside claim terms');


/** Simhash distance within which two sources are copies of one text (the index's near-duplicate bound). */
const COPY_DISTANCE = 3;

/** Sentences of one source judged at most: the claim is usually met early, and the pool task stays short. */
const MAX_SENTENCES = 200;

export interface JudgeClaimInput {
  claim: string;
  /** The index's language for the claim; null (an empty index): one detected on the sources' text. */
  language: string | null;
  /** idf of the claim's terms, as the index weighs them. */
  termWeights: Record<string, number>;
  /** Each source's text, as passages (index passages, or a page's text split into passages). */
  sources: { passages: string[] }[];
  /** Which sources may decide the verdict (primary ones, recent ones); all when absent. */
  eligible?: boolean[];
  /**
   * The ranking each source comes from (an id shared by the sources of one ranking, in their
   * ranked order), or null for a source the client named itself (a URL): of each ranking only
   * the first VERDICT_SOURCES eligible originals decide, of the named ones every one. When
   * absent, all sources are one ranking.
   */
  rankings?: (number | null)[];
  /** A statistical claim (context.claim_type): only a sentence that states its figures supports it. */
  statistical?: boolean;
  /**
   * Which of several copies of one text is its original: the source with the lowest value here
   * (the caller ranks primary sources, then the earliest published); the given order when absent.
   */
  precedence?: number[];
}

export interface JudgedSource {
  /** The source whose text this one copies (near enough), or null: a copy counts once, under its original. */
  copyOf: number | null;
  stance: Stance;
  /** The probability of that stance for the key sentence (for a neutral source: how much of the claim its key sentence covers). */
  confidence: number;
  /** The key sentence: the one that decided the stance, or the one closest to the claim. */
  snippet: string;
  /** Which of the source's passages holds the key sentence (-1: none, a source without sentences). */
  passage: number;
  /**
   * The confidence of each side: what its best sentence is worth (its probability, a hedged
   * one's times HEDGED_WEIGHT), calibrated as the share of such verdicts that were right on
   * held-out training claims (verdict.ts, calibrated).
   */
  support: number;
  contradiction: number;
  /** The same unweighted by hedging: what the claim's verdict reads (verdict.ts). */
  verdictSupport: number;
  verdictContradiction: number;
  /** Whether the claim's verdict is drawn from this source (a named page, or one of the first VERDICT_SOURCES eligible originals of its ranking). */
  decisive: boolean;
}

export interface JudgeClaimOutput {
  verdict: ClaimVerdict;
  /** The confidence of the best support and contradiction among the sources the verdict was drawn from (copies left out). */
  support: number;
  contradiction: number;
  /** Their best sentences' probabilities, as the verdict reads them (DISPUTED is read on these). */
  verdictSupport: number;
  verdictContradiction: number;
  sources: JudgedSource[];
}

/** Whether a sentence is a question (closing quotes or brackets after its mark included). */
function asks(sentence: string): boolean {
  return /[?？][\s"'”’)\]]*$/u.test(sentence);
}

/** Every sentence of every source judged against the claim; a stance per source and the claim's verdict. */
export function judgeClaim(input: JudgeClaimInput): JudgeClaimOutput {
  const language = sharedLanguage(input.language, input.sources.flatMap((s) => s.passages));
  const claim = analyseClaim(input.claim, language, input.termWeights);
  const figures = input.statistical === true && claim.cues.quantities.length > 0;
  const judged = input.sources.map((source) => {
    // Each sentence with its passage's previous one, which may name what it speaks of ("It was raised").
    // Each is read in one wording for what it names (wordings.ts) and quoted in its own.
    const sentences = source.passages.flatMap((p, passage) => splitSentences(p, language).map((text, i) => ({ text, read: commonWording(text, language), first: i === 0, passage }))).slice(0, MAX_SENTENCES);
    const analysed = sentences.map(({ read }) => analyze(read, language));
    const covered = sourceCoverage(claim, analysed, language);
    const scored = sentences.map(({ text, read, first, passage }, n) => {
      const terms = analysed[n]!;
      const cues = cuesOf(read);
      // The beliefs it reports, read once for the features and the rules below, with the next
      // sentence of its passage, which may answer one.
      const lower = lowered(read);
      const next = sentences[n + 1]?.passage === passage ? sentences[n + 1]!.read : '';
      const reports = reportsOf(lower, lowered(next));
      const features = pairFeatures(claim, read, language, covered, terms, first ? [] : analysed[n - 1], cues, reports);
      const probabilities = stanceProbabilities(MODEL, features);
      // The rules below read a short sentence's cues as bearing on the claim; one that only
      // suggests it ("may help") asserts nothing they could settle, and the model decides.
      const brief = terms.length <= RESTATEMENT_LENGTH * claim.weights.size;
      const short = brief && features[HEDGE_BESIDE] === 0;
      const unhedged = features[HEDGE_BESIDE] === 0 && !cues.uncertain;
      // Its cause statements, read once for the two rules on causes (most claims state none).
      const causes = claim.causes.length > 0 ? causeStatements(read.toLowerCase()) : [];
      const namesOther = unhedged && ((terms.length <= NAMES_ANOTHER_LENGTH * claim.weights.size
        && (namesAnother(claim, read, terms, language) || saysOpposite(claim, read, terms, language, RESTATEMENT_COVERAGE)))
        || namesAnotherCause(claim, causes, terms, language, RESTATEMENT_COVERAGE));
      const belief = deniedBeliefs(lower, reports).find((words) => contentCoverage(claim, analyze(words, language), language) >= RESTATEMENT_COVERAGE);
      if (asks(read) || (brief && cues.uncertain) || onlyReports(reports)) {
        // A question asserts nothing: a page's heading "Does coffee cause cancer?" restates the
        // claim word for word, and the answer after it is what takes a side. "The evidence is
        // unclear": a short sentence about the claim that says it is unsettled takes no side.
        // Nor does one that only says a belief is held ("Many people believe that…").
        probabilities[2] = 1;
        probabilities[0] = probabilities[1] = 0;
      } else if (belief !== undefined) {
        // "Some people believe that [the claim], but …": the sentence denies what it reports, so
        // it contradicts the claim the belief restates and supports the claim's denial.
        const sided = probabilities[0]! + probabilities[1]!;
        [probabilities[0], probabilities[1]] = restates(claim.cues, cuesOf(belief)) !== false ? [0, sided] : [sided, 0];
      } else if (namesOther) {
        // The claim's statement about another body, person or thing: "Saturn is the largest planet"
        // against "Jupiter is"; or the claim with a word replaced by one that excludes it:
        // "Dolphins are warm-blooded mammals" against "cold-blooded"; or another cause of what
        // the claim says is caused, "caused by infection" against "caused by stress" (a cause
        // statement bounds its words, so the sentence may be long). Its probability of taking a
        // side goes to contradiction, as a restatement's goes to the side its cues say.
        [probabilities[0], probabilities[1]] = [0, probabilities[0]! + probabilities[1]!];
      } else if (short && contentCoverage(claim, terms, language) >= RESTATEMENT_COVERAGE) {
        // The cues say which way, when they say it (restates): else the model's reading stands.
        const same = restatesBeside(features) ?? restates(claim.cues, cues);
        const sided = probabilities[0]! + probabilities[1]!;
        if (same !== undefined) [probabilities[0], probabilities[1]] = same ? [sided, 0] : [0, sided];
      } else if (short && contentCoverage(claim, terms, language) >= ALIGNED_COVERAGE
        && (features[ALIGNED_OPPOSED]! > 0 || features[NEGATION_BESIDE]! > 0 || features[NUMBER_CONFLICT]! > 0)) {
        // Most of the claim, said with a direction word beside what the claim's moves pointing
        // the other way, a negation on its terms that the claim does not have (or without the
        // one it has), or another value of one of its quantities: the claim turned around.
        [probabilities[0], probabilities[1]] = [0, probabilities[0]! + probabilities[1]!];
      } else if (features[NUMBER_CONFLICT]! >= QUANTITY_CONFLICT_COVERAGE && probabilities[0]! > probabilities[1]!) {
        [probabilities[0], probabilities[1]] = [probabilities[1]!, probabilities[0]!];
      }
      // What causes the claim's cause is no word on what that cause does: its support goes to neutral.
      if (answersAnotherCause(claim, causes, language, RESTATEMENT_COVERAGE)) {
        probabilities[2]! += probabilities[0]!;
        probabilities[0] = 0;
      }
      // A statistical claim stands on its figures: a sentence about it that does not state them
      // confirms nothing, so its support goes to neutral.
      if (figures && !statesFigures(claim.cues.quantities, cues.quantities)) {
        probabilities[2]! += probabilities[0]!;
        probabilities[0] = 0;
      }
      return { text, passage, terms, relevance: features[COVERAGE]!, hedged: features[HEDGED] === 1, probabilities };
    });
    return { scored, judged: judgeSource(scored) };
  });
  // The terms already analysed for judging (the first MAX_SENTENCES sentences) tell copies apart.
  const copies = copiesOf(judged.map((j) => j.scored.flatMap((s) => s.terms)), input.precedence ?? judged.map((_, i) => i));
  const candidates = judged.map((_, i) => i).filter((i) => judged[i]!.scored.length > 0 && copies[i] === null && (input.eligible?.[i] ?? true));
  const taken = new Map<number, number>();
  /** Each decisive source's weight in the verdict: RANK_DISCOUNT for each place below its ranking's first; 1 for a named page. */
  const weight = new Map<number, number>();
  const decisive = candidates.filter((i) => {
    const ranking = input.rankings ? input.rankings[i] ?? null : 0;
    if (ranking === null) {
      weight.set(i, 1);
      return true;
    }
    const place = taken.get(ranking) ?? 0;
    taken.set(ranking, place + 1);
    weight.set(i, RANK_DISCOUNT ** place);
    return place < VERDICT_SOURCES;
  });
  const probabilities = decisive.flatMap((i) => judged[i]!.scored.map((s) => discounted(s.probabilities, weight.get(i)!)));
  return {
    verdict: claimVerdict(probabilities, VERDICT_THRESHOLDS),
    // The claim's confidence reads its sources' best sentences as the verdict weighs them.
    support: calibrated(Math.max(0, ...decisive.map((i) => worth(best(judged[i]!.scored, 0), 0) * weight.get(i)!)), CONFIDENCE_CALIBRATION.support),
    contradiction: calibrated(Math.max(0, ...decisive.map((i) => worth(best(judged[i]!.scored, 1), 1) * weight.get(i)!)), CONFIDENCE_CALIBRATION.contradiction),
    verdictSupport: Math.max(0, ...decisive.map((i) => judged[i]!.judged.verdictSupport * weight.get(i)!)),
    verdictContradiction: Math.max(0, ...decisive.map((i) => judged[i]!.judged.verdictContradiction * weight.get(i)!)),
    sources: judged.map((j, i) => ({ ...j.judged, copyOf: copies[i]!, decisive: decisive.includes(i) })),
  };
}

/**
 * Whether a restatement says the same where its direction words bear on what the claim's move
 * (when none of them does: false if a negation bears on the claim's terms as none in the claim
 * does, else undefined): the sentence's direction words beside the claim's terms
 * (a negation just before one turning it) all point the claim's way, with no negation on the
 * claim's terms it lacks and no quantity of another value. Read there, "had lower blood pressure
 * than those who did not" lowers blood pressure: the negation belongs to the comparison, which
 * a tally of the sentence's negations and direction words (cues.ts, restates) cannot tell.
 */
function restatesBeside(features: readonly number[]): boolean | undefined {
  if (features[ALIGNED_OPPOSED]! > 0) return false;
  // "It is widely believed that bulls are enraged by red. In fact, …": the belief's terms are
  // negated (a report answered, cues.ts) and no direction word is there to say so.
  if (features[ALIGNED_AGREED]! === 0) return features[NEGATION_BESIDE]! > 0 ? false : undefined;
  return features[NEGATION_BESIDE] === 0 && features[NUMBER_CONFLICT] === 0;
}

/** For each source, the original it copies, or null: sources taken by precedence, each a copy of the first original within reach. */
function copiesOf(texts: readonly string[][], precedence: readonly number[]): (number | null)[] {
  const bands = texts.map((terms) => simhashBands(terms));
  const copies: (number | null)[] = bands.map(() => null);
  const originals: number[] = [];
  for (const i of bands.map((_, i) => i).sort((a, b) => precedence[a]! - precedence[b]! || a - b)) {
    const original = originals.find((j) => hammingDistance(bands[j]!, bands[i]!) <= COPY_DISTANCE);
    if (original === undefined) originals.push(i);
    else copies[i] = original;
  }
  return copies;
}

interface ScoredSentence {
  text: string;
  /** The index of its passage in the source. */
  passage: number;
  terms: string[];
  relevance: number;
  hedged: boolean;
  probabilities: number[];
}

/** The sentence most probably of a side (0 support, 1 contradiction). */
function best(scored: readonly ScoredSentence[], side: 0 | 1): ScoredSentence | undefined {
  return scored.reduce<ScoredSentence | undefined>((top, s) => (!top || s.probabilities[side]! > top.probabilities[side]! ? s : top), undefined);
}

/** What a side's best sentence is worth, as the confidence is calibrated on it (a hedged one's times HEDGED_WEIGHT). */
function worth(sentence: ScoredSentence | undefined, side: 0 | 1): number {
  return (sentence?.probabilities[side] ?? 0) * (sentence?.hedged ? HEDGED_WEIGHT : 1);
}

function judgeSource(scored: readonly ScoredSentence[]): Omit<JudgedSource, 'copyOf' | 'decisive'> {
  const supporting = best(scored, 0);
  const contradicting = best(scored, 1);
  const closest = scored.reduce<ScoredSentence | undefined>((top, s) => (!top || s.relevance > top.relevance ? s : top), undefined);
  const support = calibrated(worth(supporting, 0), CONFIDENCE_CALIBRATION.support);
  const contradiction = calibrated(worth(contradicting, 1), CONFIDENCE_CALIBRATION.contradiction);
  const verdict = claimVerdict(scored.map((s) => s.probabilities), VERDICT_THRESHOLDS);
  const key = verdict === 'SUPPORT' ? supporting! : verdict === 'CONTRADICT' ? contradicting! : closest;
  return {
    stance: verdict === 'SUPPORT' ? 'supports' : verdict === 'CONTRADICT' ? 'contradicts' : 'neutral',
    confidence: verdict === 'SUPPORT' ? support : verdict === 'CONTRADICT' ? contradiction : (closest?.relevance ?? 0),
    snippet: key?.text ?? '',
    passage: key?.passage ?? -1,
    support,
    contradiction,
    verdictSupport: supporting?.probabilities[0] ?? 0,
    verdictContradiction: contradicting?.probabilities[1] ?? 0,
  };
}
