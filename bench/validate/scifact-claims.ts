import fs from 'node:fs';
import path from 'node:path';
import { DATA_DIR } from '../extract/data.js';

/** SciFact claims from ../shared/data/claims/scifact (see its README). */
const DIR = path.join(DATA_DIR, 'claims', 'scifact');

export type ClaimLabel = 'SUPPORT' | 'CONTRADICT' | 'NOT_ENOUGH_INFO';

export interface SciFactClaim {
  id: number;
  claim: string;
  label: ClaimLabel;
  /** Abstract id → its label and the indices of its rationale sentences. */
  evidence: Record<string, { label: 'SUPPORT' | 'CONTRADICT'; sentences: number[] }>;
  cited_doc_ids: number[];
}

export function loadClaims(split: 'train' | 'dev'): SciFactClaim[] {
  return fs.readFileSync(path.join(DIR, `claims.${split}.jsonl`), 'utf8').split('\n').filter((l) => l.trim())
    .map((line) => JSON.parse(line) as SciFactClaim);
}

export const CLAIM_LABELS: readonly ClaimLabel[] = ['SUPPORT', 'CONTRADICT', 'NOT_ENOUGH_INFO'];

/** Accuracy, and per label precision, recall and F1, and their macro average. */
export function classification(pairs: readonly { gold: ClaimLabel; predicted: ClaimLabel }[]) {
  const perLabel = CLAIM_LABELS.map((label) => {
    const tp = pairs.filter((p) => p.gold === label && p.predicted === label).length;
    const predicted = pairs.filter((p) => p.predicted === label).length;
    const gold = pairs.filter((p) => p.gold === label).length;
    const precision = predicted > 0 ? tp / predicted : 0;
    const recall = gold > 0 ? tp / gold : 0;
    return { label, precision, recall, f1: precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0 };
  });
  return {
    accuracy: pairs.filter((p) => p.gold === p.predicted).length / Math.max(1, pairs.length),
    perLabel,
    macroF1: perLabel.reduce((sum, l) => sum + l.f1, 0) / perLabel.length,
  };
}

/** The confusion matrix of `pairs` as printed lines (rows gold, columns predicted). */
export function confusionLines(pairs: readonly { gold: ClaimLabel; predicted: ClaimLabel }[]): string[] {
  const short = { SUPPORT: 'SUPPORT', CONTRADICT: 'CONTRADICT', NOT_ENOUGH_INFO: 'NEI' } as const;
  const lines = ['  confusion matrix (rows gold, columns predicted):', `    ${'gold \\ predicted'.padEnd(18)}${CLAIM_LABELS.map((l) => short[l].padStart(12)).join('')}${'total'.padStart(8)}`];
  for (const gold of CLAIM_LABELS) {
    const row = CLAIM_LABELS.map((predicted) => pairs.filter((p) => p.gold === gold && p.predicted === predicted).length);
    lines.push(`    ${short[gold].padEnd(18)}${row.map((n) => String(n).padStart(12)).join('')}${String(row.reduce((a, b) => a + b, 0)).padStart(8)}`);
  }
  return lines;
}

/**
 * An answer of POST /v1/validate as one of SciFact's labels: VERIFIED and LIKELY_TRUE → SUPPORT;
 * FALSE and LIKELY_FALSE → CONTRADICT; DISPUTED → the side of the more confident evidence item;
 * UNVERIFIED (and OPINION), and an error (a claim refused as vague, no readable source) →
 * NOT_ENOUGH_INFO.
 */
// The answer is the API's JSON envelope, read as the benches read it.
export function answerLabel(answer: any): ClaimLabel {
  if (!answer.success) return 'NOT_ENOUGH_INFO';
  const { validation_result: result, evidence } = answer.data;
  if (result === 'VERIFIED' || result === 'LIKELY_TRUE') return 'SUPPORT';
  if (result === 'FALSE' || result === 'LIKELY_FALSE') return 'CONTRADICT';
  if (result === 'DISPUTED') return (evidence.supporting[0]?.confidence ?? 0) >= (evidence.contradicting[0]?.confidence ?? 0) ? 'SUPPORT' : 'CONTRADICT';
  return 'NOT_ENOUGH_INFO';
}

/**
 * The label an answer given at `confidence_threshold` 0 would have had at threshold `t`: a verdict
 * whose confidence_score is under t becomes UNVERIFIED (NOT_ENOUGH_INFO); DISPUTED does not depend
 * on the threshold. So one run at 0 gives the whole trade-off between threshold and verdicts.
 */
// The answer is the API's JSON envelope, read as the benches read it.
export function labelAtThreshold(answer: any, t: number): ClaimLabel {
  const label = answerLabel(answer);
  if (!answer.success || label === 'NOT_ENOUGH_INFO' || answer.data.validation_result === 'DISPUTED') return label;
  return answer.data.confidence_score >= t ? label : 'NOT_ENOUGH_INFO';
}

/** Thresholds the trade-off table is printed at. */
export const TRADE_OFF_THRESHOLDS = [0, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9] as const;

/**
 * What a confidence_threshold trades, from answers given at threshold 0: at each threshold the
 * share of claims given a verdict (anything but NOT_ENOUGH_INFO), the precision of those verdicts
 * (the share whose side is the gold label's) and the macro-F1.
 */
// The answers are the API's JSON envelopes.
export function tradeOff(results: readonly { gold: ClaimLabel; answer: any }[]): string[] {
  return TRADE_OFF_THRESHOLDS.map((t) => {
    const pairs = results.map((r) => ({ gold: r.gold, predicted: labelAtThreshold(r.answer, t) }));
    const answered = pairs.filter((p) => p.predicted !== 'NOT_ENOUGH_INFO');
    const right = answered.filter((p) => p.predicted === p.gold).length;
    return `    threshold ${t.toFixed(1)}: verdicts ${answered.length} of ${pairs.length} (${(100 * answered.length / Math.max(1, pairs.length)).toFixed(1)} %), `
      + `precision of verdicts ${(right / Math.max(1, answered.length)).toFixed(3)}, macro-F1 ${classification(pairs).macroF1.toFixed(3)}`;
  });
}
