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
import { analyseClaim, FEATURES, pairFeatures } from '../../src/stance/features.js';
import { STANCES, stanceProbabilities, type StanceModel } from '../../src/stance/model.js';
import { claimVerdict, type VerdictThresholds } from '../../src/stance/verdict.js';
import { prng } from '../../test/helpers/prng.js';
import { loadCorpus } from '../index/scifact.js';
import { classification, loadClaims, type SciFactClaim } from './scifact-claims.js';

const ITERATIONS = Number(process.env.TRAIN_ITERATIONS ?? 3000);
const LEARNING_RATE = 0.5;
const L2 = 1e-3;
const FOLDS = 5;
/** Cross-validations over different assignments of claims to folds: one alone moves by ±0.02 with where the folds fall. */
const REPEATS = Number(process.env.REPEATS ?? 5);

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
function abstractFeatures(claim: ReturnType<typeof analyseClaim>, sentences: readonly string[]): number[][] {
  const terms = sentences.map((sentence) => analyze(sentence, 'en'));
  return sentences.map((sentence, i) => pairFeatures(claim, sentence, 'en', terms[i], terms[i - 1]));
}

/** Per claim, the features of every sentence of its retrieved abstracts. */
const retrievedFeatures = claims.map((claim) => {
  const analysed = analyseClaim(claim.claim, 'en', termWeights);
  return retrieve(claim.claim).flatMap((id) => abstractFeatures(analysed, corpus.get(id)!.sentences));
});

interface Example { claim: number; features: number[]; stance: number }
const examples: Example[] = [];
claims.forEach((claim, index) => {
  const analysed = analyseClaim(claim.claim, 'en', termWeights);
  for (const docId of claim.cited_doc_ids) {
    const doc = corpus.get(String(docId));
    if (!doc) continue;
    const evidence = claim.evidence[String(docId)];
    abstractFeatures(analysed, doc.sentences).forEach((features, i) => {
      const rationale = evidence?.sentences.includes(i) ?? false;
      const stance = rationale ? (evidence!.label === 'SUPPORT' ? 0 : 1) : 2;
      examples.push({ claim: index, features, stance });
    });
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
function sentenceProbabilities(model: StanceModel, subset: ReadonlySet<number>): Map<number, number[][]> {
  const byClaim = new Map<number, number[][]>();
  for (const example of examples) {
    if (!subset.has(example.claim)) continue;
    if (!byClaim.has(example.claim)) byClaim.set(example.claim, []);
    byClaim.get(example.claim)!.push(stanceProbabilities(model, example.features));
  }
  return byClaim;
}

/**
 * Out-of-fold sentence probabilities for every training claim, on its cited and on its retrieved
 * abstracts, for one assignment of claims to folds.
 */
function outOfFold(folds: readonly number[]) {
  const cited = new Map<number, number[][]>();
  const retrieved = new Map<number, number[][]>();
  for (let fold = 0; fold < FOLDS; fold++) {
    const held = new Set(claims.map((_, i) => i).filter((i) => folds[i] === fold));
    const model = train(examples.filter((e) => !held.has(e.claim)));
    for (const [claim, probabilities] of sentenceProbabilities(model, held)) cited.set(claim, probabilities);
    for (const claim of held) retrieved.set(claim, retrievedFeatures[claim]!.map((f) => stanceProbabilities(model, f)));
  }
  return { cited, retrieved };
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

/** Per claim, its best support and best contradiction: all a verdict reads of its sentences. */
function bestSides(setting: Map<number, number[][]>): Map<number, number[][]> {
  const best = new Map<number, number[][]>();
  claims.forEach((_, i) => {
    const sentences = setting.get(i) ?? [];
    best.set(i, [[Math.max(0, ...sentences.map((p) => p[0]!)), Math.max(0, ...sentences.map((p) => p[1]!))]]);
  });
  return best;
}

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
  return { folds, predictions: outOfFold(folds) };
});
let chosen: VerdictThresholds | undefined;
for (const [setting, name] of [['cited', `abstracts the claim cites`], ['retrieved', `top ${RETRIEVED} abstracts by BM25`]] as const) {
  // The figures printed are nested: each fold judged with thresholds chosen on the other folds' claims.
  const reports = repeats.map(({ folds, predictions }) => {
    const sides = bestSides(predictions[setting]);
    const perFold = Array.from({ length: FOLDS }, (_, fold) => bestThresholds([sides], everyClaim.filter((i) => folds[i] !== fold)));
    return evaluate(sides, everyClaim, (i) => perFold[folds[i]!]!);
  });
  const mean = (of: (report: (typeof reports)[number]) => number) => reports.reduce((sum, r) => sum + of(r), 0) / reports.length;
  chosen = bestThresholds(repeats.map((r) => bestSides(r.predictions[setting])), everyClaim);
  console.log(`${FOLDS}-fold cross-validation on train (${REPEATS} run${REPEATS === 1 ? '' : 's'} over different folds), judged on the ${name}: accuracy ${mean((r) => r.accuracy).toFixed(3)}, `
    + `macro-F1 ${mean((r) => r.macroF1).toFixed(3)} (each time: ${reports.map((r) => r.macroF1.toFixed(3)).join(', ')}); `
    + `thresholds chosen on all claims: minimum ${chosen.minimum}, contradiction margin ${chosen.contradictionMargin}`);
  reports[0]!.perLabel.forEach((l, k) => console.log(`  ${l.label.padEnd(16)} P ${mean((r) => r.perLabel[k]!.precision).toFixed(3)} R ${mean((r) => r.perLabel[k]!.recall).toFixed(3)} F1 ${mean((r) => r.perLabel[k]!.f1).toFixed(3)}`));
}

const model = train(examples);
const target = process.env.OUT ?? path.join(PROJECT_ROOT, 'src', 'stance', 'model-weights.ts');
fs.writeFileSync(target, `// Written by bench/validate/train-stance.ts from SciFact's training claims (${claims.length}); do not edit by hand.
import type { StanceModel } from './model.js';
import type { VerdictThresholds } from './verdict.js';

export const STANCE_MODEL: StanceModel = {
  features: [${FEATURES.map((f) => `'${f}'`).join(', ')}],
  weights: [
${model.weights.map((row, s) => `    // ${STANCES[s]}\n    [${row.map(round).join(', ')}],`).join('\n')}
  ],
};

export const VERDICT_THRESHOLDS: VerdictThresholds = { minimum: ${chosen!.minimum}, contradictionMargin: ${chosen!.contradictionMargin} };
`);
console.log(`weights written to ${path.relative(PROJECT_ROOT, target)}`);

function round(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}
