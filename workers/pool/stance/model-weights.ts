// Written by bench/validate/train-stance.ts from SciFact's training claims (809); do not edit by hand.
import type { StanceModel } from './model.js';
import type { VerdictThresholds } from './verdict.js';

export const STANCE_MODEL: StanceModel = {
  features: ['bias', 'coverage', 'coverage squared', 'bigrams', 'negation mismatch', 'direction mismatch', 'direction agreement', 'polarity mismatch', 'number conflict', 'number shared', 'sentence hedged', 'sentence negated', 'claim negated'],
  weights: [
    // supports
    [-0.3639, 1.6376, 0.3606, -0.054, -0.3443, -1.021, 0.3569, -0.4944, 0.0142, 0.0773, -0.0977, 0.7221, -0.3574],
    // contradicts
    [-0.4719, 0.8009, 0.0904, 0.1915, 0.4308, 1.5795, 0.2406, 0.4704, -0.1994, 0.0629, 0.1035, 0.2001, 0.5996],
    // neutral
    [0.8358, -2.4385, -0.451, -0.1375, -0.0865, -0.5586, -0.5975, 0.024, 0.1852, -0.1402, -0.0059, -0.9222, -0.2422],
  ],
};

export const VERDICT_THRESHOLDS: VerdictThresholds = { minimum: 0.5, contradictionMargin: 0.8 };
