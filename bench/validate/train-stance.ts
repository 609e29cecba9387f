/**
 * Trains the stance model (src/stance) on SciFact's training claims only, and writes
 * its weights to src/stance/model-weights.ts. The dev claims are never read here: they
 * are what bench/validate measures the service on.
 *
 *   npm run build && node dist/bench/validate/train-stance.js
 *   OUT=/tmp/weights.ts node dist/bench/validate/train-stance.js     writes the weights there instead, for experiments
 *   REPEATS=1 node dist/bench/validate/train-stance.js                one cross-validation instead of five (faster, noisier)
 *
 * Examples: every sentence of every abstract a training claim cites, labelled with the claim's
 * evidence (a rationale sentence of a supporting abstract `supports`, of a contradicting one
 * `contradicts`, any other sentence `neutral`). Term weights are BM25 idf over the corpus, as the
 * index computes them. Multinomial logistic regression, full-batch gradient descent, classes
 * weighted by their inverse frequency, L2 penalty. The claim-level thresholds (when the best
 * sentences are too weak for a verdict, and how much a contradiction must outweigh support) are
 * chosen on the out-of-fold predictions of a 5-fold cross-validation over the training claims
 * (claims citing a common abstract in one fold), run REPEATS times over different folds, as
 * the thresholds best on average over those runs. Its figures are printed (nested: each fold
 * judged with thresholds chosen on the other folds' claims; the mean over the runs, and each
 * run's macro-F1), in two settings: judged on the abstracts each claim cites, and on
 * the RETRIEVED abstracts a plain BM25 ranks highest for it (as the service judges a claim on
 * what its index finds). The thresholds written are the retrieval setting's.
 */
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/paths.js';
import { analyze, analyzeQuery } from '../../src/text/analyze.js';
import { idf } from '../../src/ranking/bm25.js';
import { analyseClaim, FEATURES, pairFeatures, sourceCoverage } from '../../src/stance/features.js';
import { commonWording } from '../../src/stance/wordings.js';
import { STANCES, stanceProbabilities, type StanceModel } from '../../src/stance/model.js';
import { calibrated, claimVerdict, HEDGED_WEIGHT, type ConfidenceCalibration, type VerdictThresholds } from '../../src/stance/verdict.js';
import { discounted, RANK_DISCOUNT } from '../../src/stance/judge-claim.js';
import { prng } from '../../test/helpers/prng.js';
import { loadCorpus } from '../index/scifact.js';
import { classification, loadClaims, type SciFactClaim } from './scifact-claims.js';

const ITERATIONS = Number(process.env.TRAIN_ITERATIONS ?? 3000);
const LEARNING_RATE = 0.5;
const L2 = 1e-3;
const FOLDS = 5;
/** Cross-validations over different assignments of claims to folds: one alone moves by ±0.02 with where the folds fall. */
const REPEATS = Number(process.env.REPEATS ?? 5);
/** How claims are put in folds: by topic (whole topics held out, the default) or by the abstracts they cite only. */
const HOLD_OUT = (process.env.HOLD_OUT ?? 'topic') as 'topic' | 'abstract';
/** Topics the training claims are clustered into for the topic hold-out. */
const TOPICS = 30;
/** Whether each example is also trained on with its claim's terms weighed alike (UNIFORM=0 turns it off, for comparison). */
const UNIFORM_WEIGHTS = process.env.UNIFORM !== '0';

const HEDGED = FEATURES.indexOf('sentence hedged');
const corpus = new Map(loadCorpus().map((doc) => [doc.id, doc]));
const claims = loadClaims('train');

// BM25 idf over the abstracts, as the index weighs terms.
const documentFrequency = new Map<string, number>();
for (const doc of corpus.values()) {
  for (const term of new Set(analyze(`${doc.title} ${doc.sentences.join(' ')}`, 'en'))) {
    documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
  }
}
const termWeights: Record<string, number> = {};
for (const [term, df] of documentFrequency) termWeights[term] = idf(df, corpus.size);

// Abstracts BM25 ranks first for each claim (k1 1.2, b 0.75 over title and text).
const RETRIEVED = 3;
const postings = new Map<string, Array<[string, number]>>();
const lengths = new Map<string, number>();
for (const doc of corpus.values()) {
  const terms = analyze(`${doc.title} ${doc.sentences.join(' ')}`, 'en');
  lengths.set(doc.id, terms.length);
  const tf = new Map<string, number>();
  for (const term of terms) tf.set(term, (tf.get(term) ?? 0) + 1);
  for (const [term, count] of tf) {
    if (!postings.has(term)) postings.set(term, []);
    postings.get(term)!.push([doc.id, count]);
  }
}
const averageLength = [...lengths.values()].reduce((a, b) => a + b, 0) / lengths.size;
function retrieve(claim: string): string[] {
  const scores = new Map<string, number>();
  for (const term of new Set(analyzeQuery(claim, 'en'))) {
    for (const [docId, tf] of postings.get(term) ?? []) {
      const norm = tf + 1.2 * (0.25 + (0.75 * lengths.get(docId)!) / averageLength);
      scores.set(docId, (scores.get(docId) ?? 0) + (termWeights[term] ?? 0) * ((tf * 2.2) / norm));
    }
  }
  return [...scores].sort((a, b) => b[1] - a[1]).slice(0, RETRIEVED).map(([id]) => id);
}
/** The features of each sentence of an abstract, read with the sentence before it (as judgeClaim reads a passage). */
function abstractFeatures(claim: ReturnType<typeof analyseClaim>, said: readonly string[]): number[][] {
  const sentences = said.map((sentence) => commonWording(sentence, 'en'));
  const terms = sentences.map((sentence) => analyze(sentence, 'en'));
  const source = sourceCoverage(claim, terms, 'en');
  return sentences.map((sentence, i) => pairFeatures(claim, sentence, 'en', source, terms[i], terms[i - 1]));
}

/** Per claim, the features of every sentence of its retrieved abstracts, each with its abstract's weight in the verdict (judge-claim.ts, RANK_DISCOUNT). */
const retrievedFeatures = claims.map((claim) => {
  const analysed = analyseClaim(claim.claim, 'en', termWeights);
  return retrieve(claim.claim).flatMap((id, place) => abstractFeatures(analysed, corpus.get(id)!.sentences)
    .map((features) => ({ features, weight: RANK_DISCOUNT ** place })));
});

interface Example { claim: number; features: number[]; stance: number; uniform: boolean }
/**
 * Every sentence of the cited abstracts, twice: with the claim's terms weighed by the corpus's
 * idf, as an index that holds the topic weighs them, and with every term weighed alike, as the
 * service weighs a claim's terms when its index knows none of them (a fresh deployment judging a
 * claim against the pages it was given). A model trained on the first only leans on idf-weighted
 * coverage that a short claim judged on an empty index never has. Only the first are evaluated.
 */
const examples: Example[] = [];
claims.forEach((claim, index) => {
  for (const uniform of UNIFORM_WEIGHTS ? [false, true] : [false]) {
    const analysed = analyseClaim(claim.claim, 'en', uniform ? {} : termWeights);
    for (const docId of claim.cited_doc_ids) {
      const doc = corpus.get(String(docId));
      if (!doc) continue;
      const evidence = claim.evidence[String(docId)];
      abstractFeatures(analysed, doc.sentences).forEach((features, i) => {
        const rationale = evidence?.sentences.includes(i) ?? false;
        const stance = rationale ? (evidence!.label === 'SUPPORT' ? 0 : 1) : 2;
        examples.push({ claim: index, features, stance, uniform });
      });
    }
  }
});

function train(set: readonly Example[]): StanceModel {
  const classes = STANCES.length;
  const width = FEATURES.length;
  const counts = STANCES.map((_, s) => set.filter((e) => e.stance === s).length);
  const classWeight = counts.map((c) => set.length / (classes * Math.max(1, c)));
  // Flat typed arrays: the loop below runs ITERATIONS times over every example.
  const x = Float64Array.from(set.flatMap((e) => e.features));
  const weights = new Float64Array(classes * width);
  const gradient = new Float64Array(classes * width);
  const p = new Float64Array(classes);
  const total = set.reduce((sum, e) => sum + classWeight[e.stance]!, 0);
  for (let iteration = 0; iteration < ITERATIONS; iteration++) {
    gradient.fill(0);
    set.forEach((example, n) => {
      const at = n * width;
      let top = -Infinity;
      for (let s = 0; s < classes; s++) {
        let score = 0;
        for (let f = 0; f < width; f++) score += weights[s * width + f]! * x[at + f]!;
        p[s] = score;
        top = Math.max(top, score);
      }
      let sum = 0;
      for (let s = 0; s < classes; s++) sum += (p[s] = Math.exp(p[s]! - top));
      const w = classWeight[example.stance]!;
      for (let s = 0; s < classes; s++) {
        const error = w * (p[s]! / sum - (s === example.stance ? 1 : 0));
        for (let f = 0; f < width; f++) gradient[s * width + f]! += error * x[at + f]!;
      }
    });
    for (let k = 0; k < weights.length; k++) {
      weights[k]! -= LEARNING_RATE * (gradient[k]! / total + (k % width === 0 ? 0 : L2 * weights[k]!));
    }
  }
  return { features: FEATURES, weights: STANCES.map((_, s) => [...weights.subarray(s * width, (s + 1) * width)]) };
}

/** Per claim, each of its sentences' stance probabilities under `model`. */
function sentenceProbabilities(model: StanceModel, subset: ReadonlySet<number>, uniform = false): Map<number, number[][]> {
  const byClaim = new Map<number, number[][]>();
  for (const example of examples) {
    if (!subset.has(example.claim) || example.uniform !== uniform) continue;
    if (!byClaim.has(example.claim)) byClaim.set(example.claim, []);
    byClaim.get(example.claim)!.push([...stanceProbabilities(model, example.features), example.features[HEDGED]!]);
  }
  return byClaim;
}

/**
 * Out-of-fold sentence probabilities for every training claim, on its cited and on its retrieved
 * abstracts, for one assignment of claims to folds.
 */
function outOfFold(folds: readonly number[]) {
  const cited = new Map<number, number[][]>();
  const alike = new Map<number, number[][]>();
  const retrieved = new Map<number, number[][]>();
  for (let fold = 0; fold < FOLDS; fold++) {
    const held = new Set(claims.map((_, i) => i).filter((i) => folds[i] === fold));
    const model = train(examples.filter((e) => !held.has(e.claim)));
    for (const [claim, probabilities] of sentenceProbabilities(model, held)) cited.set(claim, probabilities);
    if (UNIFORM_WEIGHTS) for (const [claim, probabilities] of sentenceProbabilities(model, held, true)) alike.set(claim, probabilities);
    for (const claim of held) {
      retrieved.set(claim, retrievedFeatures[claim]!.map(({ features, weight }) => [...discounted(stanceProbabilities(model, features), weight), features[HEDGED]!]));
    }
  }
  return { cited, alike, retrieved };
}

/**
 * Each claim's fold, claims that cite a common abstract kept in one fold. SciFact writes several
 * claims from one citation (a claim and its negation, say), and they sit side by side in the
 * file: split apart, the model would learn a held-out claim's own rationale sentences from its
 * sibling, and the figures would promise more than claims about unseen abstracts get.
 */
function foldsByAbstract(list: readonly SciFactClaim[], seed: number): number[] {
  const parent = list.map((_, i) => i);
  const root = (i: number): number => (parent[i] === i ? i : (parent[i] = root(parent[i]!)));
  const byDocument = new Map<number, number>();
  list.forEach((claim, i) => {
    for (const doc of claim.cited_doc_ids) {
      const other = byDocument.get(doc);
      if (other === undefined) byDocument.set(doc, i);
      else parent[root(i)] = root(other);
    }
  });
  const groups = new Map<number, number[]>();
  list.forEach((_, i) => groups.set(root(i), [...(groups.get(root(i)) ?? []), i]));
  if (HOLD_OUT === 'topic') {
    // Whole topics held out: the groups clustered by what their claims and cited titles speak of,
    // each topic's groups merged into one.
    const members = [...groups.values()];
    const topics = topicsOf(members, seed);
    groups.clear();
    members.forEach((group, g) => groups.set(topics[g]!, [...(groups.get(topics[g]!) ?? []), ...group]));
  }
  // Largest groups first (groups of one size in an order drawn from the seed), each to the fold with fewest claims so far.
  const random = prng(seed);
  const drawn = new Map([...groups.values()].map((members) => [members, random()]));
  const sizes = new Array<number>(FOLDS).fill(0);
  const folds = new Array<number>(list.length);
  for (const members of [...groups.values()].sort((a, b) => b.length - a.length || drawn.get(a)! - drawn.get(b)!)) {
    const fold = sizes.indexOf(Math.min(...sizes));
    for (const i of members) folds[i] = fold;
    sizes[fold]! += members.length;
  }
  return folds;
}

/**
 * The topic of each group of claims (claims citing a common abstract): spherical k-means over
 * tf-idf vectors of the group's claims and the titles of the abstracts they cite, TOPICS
 * clusters, starting from groups drawn with `seed`. Held out whole, a topic's claims (one gene,
 * one drug, one disease) are judged by a model that never saw its vocabulary, as claims of
 * another field are.
 */
function topicsOf(groups: readonly number[][], seed: number): number[] {
  const vectors = groups.map((group) => {
    const tf = new Map<string, number>();
    for (const i of group) {
      const claim = claims[i]!;
      const titles = claim.cited_doc_ids.map((id) => corpus.get(String(id))?.title ?? '').join(' ');
      for (const term of analyze(`${claim.claim} ${titles}`, 'en')) tf.set(term, (tf.get(term) ?? 0) + 1);
    }
    const vector = new Map([...tf].map(([term, n]) => [term, n * (termWeights[term] ?? 0)]));
    const norm = Math.sqrt([...vector.values()].reduce((sum, v) => sum + v * v, 0)) || 1;
    for (const [term, v] of vector) vector.set(term, v / norm);
    return vector;
  });
  const random = prng(1000 + seed);
  let centroids = Array.from({ length: TOPICS }, () => new Map(vectors[Math.floor(random() * vectors.length)]!));
  let assignment = new Array<number>(vectors.length).fill(0);
  for (let round = 0; round < 15; round++) {
    assignment = vectors.map((vector) => {
      let best = 0;
      let bestScore = -Infinity;
      centroids.forEach((centroid, k) => {
        let score = 0;
        for (const [term, v] of vector) score += v * (centroid.get(term) ?? 0);
        if (score > bestScore) [best, bestScore] = [k, score];
      });
      return best;
    });
    centroids = centroids.map((old, k) => {
      const sum = new Map<string, number>();
      vectors.forEach((vector, g) => {
        if (assignment[g] !== k) return;
        for (const [term, v] of vector) sum.set(term, (sum.get(term) ?? 0) + v);
      });
      if (sum.size === 0) return old;
      const norm = Math.sqrt([...sum.values()].reduce((total, v) => total + v * v, 0)) || 1;
      for (const [term, v] of sum) sum.set(term, v / norm);
      return sum;
    });
  }
  return assignment;
}

/**
 * Per claim, its sentences' probabilities (every claim present, one without sentences with
 * none): all a verdict reads (verdict.ts pools the sentences that clearly take a side).
 */
function claimSentences(setting: Map<number, number[][]>): Map<number, number[][]> {
  return new Map(claims.map((_, i) => [i, setting.get(i) ?? []]));
}

/** What the best sentence of a side (0 support, 1 contradiction) is worth as the service reports it (a hedged one's times HEDGED_WEIGHT), which the confidence is calibrated on. */
function worth(sentences: readonly number[][], side: 0 | 1): number {
  const top = sentences.reduce<number[] | undefined>((b, p) => (!b || p[side]! > b[side]! ? p : b), undefined);
  return top ? top[side]! * (top[3] ? HEDGED_WEIGHT : 1) : 0;
}

/**
 * The confidence reported for a verdict, as the chance that it is right: for each side, a
 * logistic map of what its best sentence is worth (Platt scaling), fitted on the out-of-fold
 * verdicts of every cross-validation run: whether each verdict of that side was the claim's gold
 * label. Newton's method on two parameters per side.
 */
function fitCalibration(runs: readonly Map<number, number[][]>[], thresholds: VerdictThresholds): ConfidenceCalibration {
  const fit = (side: 'SUPPORT' | 'CONTRADICT') => {
    const points: [number, number][] = [];
    for (const sides of runs) {
      claims.forEach((claim, i) => {
        const sentences = sides.get(i)!;
        if (claimVerdict(sentences, thresholds) !== side) return;
        points.push([worth(sentences, side === 'SUPPORT' ? 0 : 1), claim.label === side ? 1 : 0]);
      });
    }
    let [a, b] = [0, 1];
    for (let iteration = 0; iteration < 50; iteration++) {
      let [ga, gb, haa, hab, hbb] = [0, 0, 1e-6, 0, 1e-6];
      for (const [x, y] of points) {
        const p = 1 / (1 + Math.exp(-(a + b * x)));
        ga += p - y;
        gb += (p - y) * x;
        const w = p * (1 - p);
        haa += w;
        hab += w * x;
        hbb += w * x * x;
      }
      const det = haa * hbb - hab * hab;
      a -= (hbb * ga - hab * gb) / det;
      b -= (haa * gb - hab * ga) / det;
    }
    return [round(a), round(b)] as [number, number];
  };
  return { support: fit('SUPPORT'), contradiction: fit('CONTRADICT') };
}

/**
 * What each confidence_threshold trades on the out-of-fold verdicts (thresholds as chosen, the
 * confidence calibrated): the share of claims given a verdict, the precision of those verdicts
 * and the macro-F1, averaged over the runs.
 */
function tradeOffTable(runs: readonly Map<number, number[][]>[], thresholds: VerdictThresholds, calibration: ConfidenceCalibration): number {
  const rows: { t: number; macroF1: number }[] = [];
  for (const t of [0, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.8]) {
    const figures = runs.map((sides) => {
      const pairs = claims.map((claim, i) => {
        const sentences = sides.get(i)!;
        const verdict = claimVerdict(sentences, thresholds);
        const confidence = verdict === 'SUPPORT' ? calibrated(worth(sentences, 0), calibration.support) : verdict === 'CONTRADICT' ? calibrated(worth(sentences, 1), calibration.contradiction) : 0;
        return { gold: claim.label, predicted: verdict !== 'NOT_ENOUGH_INFO' && confidence >= t ? verdict : 'NOT_ENOUGH_INFO' as const };
      });
      const answered = pairs.filter((p) => p.predicted !== 'NOT_ENOUGH_INFO');
      return [answered.length / pairs.length, answered.filter((p) => p.predicted === p.gold).length / Math.max(1, answered.length), classification(pairs).macroF1];
    });
    const mean = (k: number) => figures.reduce((sum, f) => sum + f[k]!, 0) / figures.length;
    console.log(`  confidence_threshold ${t.toFixed(2)}: verdicts ${(100 * mean(0)).toFixed(1)} % of claims, precision of verdicts ${mean(1).toFixed(3)}, macro-F1 ${mean(2).toFixed(3)}`);
    rows.push({ t, macroF1: mean(2) });
  }
  // The default: the highest threshold that costs no more than DEFAULT_TOLERANCE of the best macro-F1 (more precise verdicts for free).
  const best = Math.max(...rows.map((r) => r.macroF1));
  return Math.max(...rows.filter((r) => r.macroF1 >= best - DEFAULT_TOLERANCE).map((r) => r.t));
}
/** How much macro-F1 the default threshold may cost against the best one, out of fold. */
const DEFAULT_TOLERANCE = 0.005;

function evaluate(setting: Map<number, number[][]>, subset: readonly number[], thresholds: (claim: number) => VerdictThresholds) {
  return classification(subset.map((i) => ({ gold: claims[i]!.label, predicted: claimVerdict(setting.get(i)!, thresholds(i)) })));
}

/** The thresholds that give `subset` the highest macro-F1, averaged over the sets of predictions given for it. */
function bestThresholds(settings: readonly Map<number, number[][]>[], subset: readonly number[]): VerdictThresholds {
  let best: { thresholds: VerdictThresholds; macroF1: number } | undefined;
  for (let minimum = 0.3; minimum <= 0.951; minimum += 0.025) {
    for (let contradictionMargin = 0.5; contradictionMargin <= 2.01; contradictionMargin += 0.1) {
      const thresholds = { minimum: round(minimum), contradictionMargin: round(contradictionMargin) };
      const macroF1 = settings.reduce((sum, setting) => sum + evaluate(setting, subset, () => thresholds).macroF1, 0) / settings.length;
      if (!best || macroF1 > best.macroF1) best = { thresholds, macroF1 };
    }
  }
  return best!.thresholds;
}

console.log(`training claims: ${claims.length}, sentence examples: ${examples.length} (${STANCES.map((s, i) => `${s} ${examples.filter((e) => e.stance === i).length}`).join(', ')})`);
const everyClaim = claims.map((_, i) => i);
const repeats = Array.from({ length: REPEATS }, (_, seed) => {
  const folds = foldsByAbstract(claims, seed);
  const sizes = Array.from({ length: FOLDS }, (_, fold) => folds.filter((f) => f === fold).length);
  console.log(`folds (${HOLD_OUT === 'topic' ? `whole topics of ${TOPICS} held out` : 'claims citing a common abstract together'}), run ${seed + 1}: ${sizes.join(', ')} claims`);
  return { folds, predictions: outOfFold(folds) };
});
let chosen: VerdictThresholds | undefined;
const settings = [['cited', 'abstracts the claim cites'], ['alike', 'abstracts the claim cites, its terms weighed alike (as on an empty index)'], ['retrieved', `top ${RETRIEVED} abstracts by BM25`]] as const;
for (const [setting, name] of settings.filter(([setting]) => setting !== 'alike' || UNIFORM_WEIGHTS)) {
  // The figures printed are nested: each fold judged with thresholds chosen on the other folds' claims.
  const reports = repeats.map(({ folds, predictions }) => {
    const sides = claimSentences(predictions[setting]);
    const perFold = Array.from({ length: FOLDS }, (_, fold) => bestThresholds([sides], everyClaim.filter((i) => folds[i] !== fold)));
    return evaluate(sides, everyClaim, (i) => perFold[folds[i]!]!);
  });
  const mean = (of: (report: (typeof reports)[number]) => number) => reports.reduce((sum, r) => sum + of(r), 0) / reports.length;
  chosen = bestThresholds(repeats.map((r) => claimSentences(r.predictions[setting])), everyClaim);
  console.log(`${FOLDS}-fold cross-validation on train (${REPEATS} run${REPEATS === 1 ? '' : 's'} over different folds), judged on the ${name}: accuracy ${mean((r) => r.accuracy).toFixed(3)}, `
    + `macro-F1 ${mean((r) => r.macroF1).toFixed(3)} (each time: ${reports.map((r) => r.macroF1.toFixed(3)).join(', ')}); `
    + `thresholds chosen on all claims: minimum ${chosen.minimum}, contradiction margin ${chosen.contradictionMargin}`);
  reports[0]!.perLabel.forEach((l, k) => console.log(`  ${l.label.padEnd(16)} P ${mean((r) => r.perLabel[k]!.precision).toFixed(3)} R ${mean((r) => r.perLabel[k]!.recall).toFixed(3)} F1 ${mean((r) => r.perLabel[k]!.f1).toFixed(3)}`));
}
// The confidence calibrated on the retrieval setting's out-of-fold verdicts, as the service judges claims.
const runs = repeats.map((r) => claimSentences(r.predictions.retrieved));
const calibration = fitCalibration(runs, chosen!);
console.log(`confidence calibration (P(right) = 1 / (1 + e^-(a + b·p))): support a ${calibration.support[0]}, b ${calibration.support[1]}; contradiction a ${calibration.contradiction[0]}, b ${calibration.contradiction[1]}`);
console.log('what a confidence_threshold trades, out of fold with retrieval (calibrated on the same verdicts, so slightly flattering):');
const suggested = tradeOffTable(runs, chosen!, calibration);
console.log(`default confidence_threshold suggested (the highest within ${DEFAULT_TOLERANCE} of the best macro-F1 above; schemas/validate.request.json holds the default): ${suggested}`);

const model = train(examples);
const target = process.env.OUT ?? path.join(PROJECT_ROOT, 'src', 'stance', 'model-weights.ts');
fs.writeFileSync(target, `// Written by bench/validate/train-stance.ts from SciFact's training claims (${claims.length}); do not edit by hand.
import type { StanceModel } from './model.js';
import type { ConfidenceCalibration, VerdictThresholds } from './verdict.js';

export const STANCE_MODEL: StanceModel = {
  features: [${FEATURES.map((f) => `'${f}'`).join(', ')}],
  weights: [
${model.weights.map((row, s) => `    // ${STANCES[s]}\n    [${row.map(round).join(', ')}],`).join('\n')}
  ],
};

export const VERDICT_THRESHOLDS: VerdictThresholds = { minimum: ${chosen!.minimum}, contradictionMargin: ${chosen!.contradictionMargin} };

export const CONFIDENCE_CALIBRATION: ConfidenceCalibration = { support: [${calibration.support.join(', ')}], contradiction: [${calibration.contradiction.join(', ')}] };
`);
console.log(`weights written to ${path.relative(PROJECT_ROOT, target)}`);

function round(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}
