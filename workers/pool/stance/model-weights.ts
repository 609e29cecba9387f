// Written by bench/validate/train-stance.ts from SciFact's training claims (809); do not edit by hand.
import type { StanceModel } from './model.js';
import type { VerdictThresholds } from './verdict.js';

export const STANCE_MODEL: StanceModel = {
  features: ['bias', 'coverage', 'coverage squared', 'bigrams', 'negation mismatch', 'direction mismatch', 'direction agreement', 'polarity mismatch', 'number conflict', 'number shared', 'sentence hedged', 'sentence negated', 'claim negated'],
  weights: [
    // supports
    [-0.324, 1.7079, 0.3476, -0.0395, -0.4559, -1.1094, 0.305, -0.5818, -0.0111, 0.0489, -0.0895, 0.7947, -0.4709],
    // contradicts
    [-0.5426, 0.6791, 0.0671, 0.1601, 0.4638, 1.7903, 0.3109, 0.6694, -0.1668, 0.1198, 0.0956, 0.1813, 0.7805],
    // neutral
    [0.8666, -2.387, -0.4146, -0.1206, -0.0079, -0.6809, -0.6158, -0.0876, 0.1779, -0.1687, -0.0061, -0.9761, -0.3097],
  ],
};

export const VERDICT_THRESHOLDS: VerdictThresholds = { minimum: 0.525, contradictionMargin: 1 };
