// Written by bench/validate/train-stance.ts from SciFact's training claims (809); do not edit by hand.
import type { StanceModel } from './model.js';
import type { VerdictThresholds } from './verdict.js';

export const STANCE_MODEL: StanceModel = {
  features: ['bias', 'coverage', 'coverage squared', 'bigrams', 'negation mismatch', 'direction mismatch', 'direction agreement', 'polarity mismatch', 'number conflict', 'number shared', 'sentence hedged', 'sentence negated', 'claim negated', 'coverage added by the previous sentence', 'direction mismatch after the previous sentence', 'polarity mismatch after the previous sentence', 'direction mismatch beside claim terms', 'direction agreement beside claim terms', 'negation mismatch beside claim terms'],
  weights: [
    // supports
    [-0.3605, 1.782, 0.4412, 0.0291, -0.1345, -0.8837, 0.2392, -0.5615, -0.0485, 0.0075, -0.1112, 0.712, -0.3671, 0.2851, 0.0394, -0.2414, -0.5689, 0.3976, -0.7267],
    // contradicts
    [-0.5141, 0.5597, -0.0877, 0.0035, 0.1075, 1.4195, 0.2428, 0.552, -0.1181, 0.187, 0.1072, 0.2652, 0.6766, -0.2692, 0.3468, 0.4341, 1.2869, 0.0261, 0.8932],
    // neutral
    [0.8746, -2.3418, -0.3535, -0.0326, 0.027, -0.5357, -0.482, 0.0096, 0.1666, -0.1945, 0.0041, -0.9772, -0.3095, -0.016, -0.3862, -0.1926, -0.718, -0.4237, -0.1664],
  ],
};

export const VERDICT_THRESHOLDS: VerdictThresholds = { minimum: 0.575, contradictionMargin: 0.8 };
