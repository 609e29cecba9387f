// Written by bench/validate/train-stance.ts from SciFact's training claims (809); do not edit by hand.
import type { StanceModel } from './model.js';
import type { VerdictThresholds } from './verdict.js';

export const STANCE_MODEL: StanceModel = {
  features: ['bias', 'coverage', 'coverage squared', 'bigrams', 'negation mismatch', 'direction mismatch', 'direction agreement', 'polarity mismatch', 'number conflict', 'number shared', 'sentence hedged', 'sentence negated', 'claim negated'],
  weights: [
    // supports
    [-0.3624, 1.6446, 0.357, -0.0381, -0.346, -1.018, 0.3587, -0.4923, -0.2584, 0.0149, -0.0992, 0.7249, -0.3589],
    // contradicts
    [-0.4708, 0.8029, 0.0922, 0.2073, 0.4266, 1.5853, 0.2401, 0.4742, -0.0558, -0.0067, 0.1031, 0.1991, 0.5987],
    // neutral
    [0.8332, -2.4475, -0.4492, -0.1691, -0.0806, -0.5673, -0.5987, 0.018, 0.3142, -0.0081, -0.0038, -0.9241, -0.2398],
  ],
};

export const VERDICT_THRESHOLDS: VerdictThresholds = { minimum: 0.5, contradictionMargin: 0.8 };
