import { FEATURES } from './features.js';

/** A sentence's stance on a claim. */
export const STANCES = ['supports', 'contradicts', 'neutral'] as const;
export type Stance = (typeof STANCES)[number];

/** Multinomial logistic regression over pairFeatures: one weight row per stance, in STANCES order. */
export interface StanceModel {
  features: readonly string[];
  weights: readonly (readonly number[])[];
}

/** The probability of each stance (STANCES order) for one claim-sentence pair. */
export function stanceProbabilities(model: StanceModel, features: readonly number[]): number[] {
  const scores = model.weights.map((row) => row.reduce((sum, w, i) => sum + w * features[i]!, 0));
  const top = Math.max(...scores);
  const exps = scores.map((s) => Math.exp(s - top));
  const total = exps.reduce((a, b) => a + b, 0);
  return exps.map((e) => e / total);
}

/** Refuses weights trained for another feature list (a feature added without retraining). */
export function checkModel(model: StanceModel): StanceModel {
  if (model.features.join('|') !== FEATURES.join('|') || model.weights.length !== STANCES.length
    || model.weights.some((row) => row.length !== FEATURES.length)) {
    throw new Error('the stance model was trained on other features: run bench/validate/train-stance.ts again');
  }
  return model;
}
