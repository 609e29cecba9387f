// Written by bench/validate/train-stance.ts from SciFact's training claims (809); do not edit by hand.
import type { StanceModel } from './model.js';
import type { VerdictThresholds } from './verdict.js';

export const STANCE_MODEL: StanceModel = {
  features: ['bias', 'coverage', 'coverage squared', 'bigrams', 'negation mismatch', 'direction mismatch', 'direction agreement', 'polarity mismatch', 'number conflict', 'number shared', 'sentence hedged', 'sentence negated', 'claim negated'],
  weights: [
    // supports
    [-0.3242, 1.7067, 0.3489, -0.0425, -0.4552, -1.1089, 0.3036, -0.5808, -0.0112, 0.0606, -0.0918, 0.796, -0.4704],
    // contradicts
    [-0.5414, 0.6818, 0.064, 0.1709, 0.4613, 1.7942, 0.3135, 0.6701, -0.1688, 0.0832, 0.0923, 0.1782, 0.7794],
    // neutral
    [0.8656, -2.3885, -0.4128, -0.1284, -0.0061, -0.6853, -0.617, -0.0893, 0.18, -0.1438, -0.0005, -0.9742, -0.309],
  ],
};

export const VERDICT_THRESHOLDS: VerdictThresholds = { minimum: 0.525, contradictionMargin: 1 };
