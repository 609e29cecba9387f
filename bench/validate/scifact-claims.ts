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
