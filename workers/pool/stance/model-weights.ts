// Written by bench/validate/train-stance.ts from SciFact's training claims (809); do not edit by hand.
import type { StanceModel } from './model.js';
import type { VerdictThresholds } from './verdict.js';

export const STANCE_MODEL: StanceModel = {
  features: ['bias', 'coverage', 'coverage squared', 'bigrams', 'negation mismatch', 'direction mismatch', 'direction agreement', 'polarity mismatch', 'number conflict', 'number shared', 'sentence hedged', 'sentence negated', 'claim negated', 'coverage added by the previous sentence', 'direction mismatch after the previous sentence', 'polarity mismatch after the previous sentence'],
  weights: [
    // supports
    [-0.3469, 1.7155, 0.3588, -0.0395, -0.4487, -1.1185, 0.298, -0.5715, -0.0109, 0.047, -0.0892, 0.7977, -0.4662, 0.3068, 0.0666, -0.2411],
    // contradicts
    [-0.5365, 0.6965, 0.0777, 0.1467, 0.4664, 1.7382, 0.3176, 0.6136, -0.1664, 0.1179, 0.0958, 0.1868, 0.7763, -0.285, 0.3385, 0.4329],
    // neutral
    [0.8834, -2.4119, -0.4366, -0.1071, -0.0177, -0.6197, -0.6156, -0.0421, 0.1774, -0.1649, -0.0066, -0.9844, -0.3101, -0.0217, -0.4051, -0.1918],
  ],
};

export const VERDICT_THRESHOLDS: VerdictThresholds = { minimum: 0.525, contradictionMargin: 0.9 };
