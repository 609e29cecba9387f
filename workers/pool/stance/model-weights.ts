// Written by bench/validate/train-stance.ts from SciFact's training claims (809); do not edit by hand.
import type { StanceModel } from './model.js';
import type { VerdictThresholds } from './verdict.js';

export const STANCE_MODEL: StanceModel = {
  features: ['bias', 'coverage', 'coverage squared', 'bigrams', 'negation mismatch', 'direction mismatch', 'direction agreement', 'polarity mismatch', 'number conflict', 'number shared', 'sentence hedged', 'sentence negated', 'claim negated'],
  weights: [
    // supports
    [-0.364, 1.6376, 0.3598, -0.0539, -0.3441, -1.0206, 0.3569, -0.4929, -0.0884, 0.0754, -0.0978, 0.7236, -0.3572],
    // contradicts
    [-0.4713, 0.802, 0.0892, 0.2002, 0.4281, 1.5827, 0.2408, 0.4726, -0.0247, 0.0233, 0.1036, 0.1971, 0.5989],
    // neutral
    [0.8353, -2.4395, -0.449, -0.1463, -0.084, -0.5622, -0.5977, 0.0203, 0.1131, -0.0986, -0.0058, -0.9207, -0.2417],
  ],
};

export const VERDICT_THRESHOLDS: VerdictThresholds = { minimum: 0.525, contradictionMargin: 0.8 };
