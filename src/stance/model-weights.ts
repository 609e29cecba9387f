// Written by bench/validate/train-stance.ts from SciFact's training claims (809); do not edit by hand.
import type { StanceModel } from './model.js';
import type { ConfidenceCalibration, VerdictThresholds } from './verdict.js';

export const STANCE_MODEL: StanceModel = {
  features: ['bias', 'coverage', 'coverage squared', 'bigrams', 'negation mismatch', 'direction mismatch', 'direction agreement', 'polarity mismatch', 'number conflict', 'number shared', 'sentence hedged', 'sentence negated', 'claim negated', 'coverage added by the previous sentence', 'direction mismatch after the previous sentence', 'polarity mismatch after the previous sentence', 'direction mismatch beside claim terms', 'direction agreement beside claim terms', 'negation mismatch beside claim terms', 'plain coverage', 'entity coverage', 'entity replaced', 'sentence about the claim', 'hedge beside claim terms', 'claim hedged'],
  weights: [
    // supports
    [-0.3925, 1.584, 0.6015, -0.284, -0.2027, -0.8172, 0.0622, -0.4824, -0.3733, 0.1014, -0.1062, 0.8083, -0.3628, 0.2897, -0.0989, -0.3325, -0.527, 0.3984, -0.7584, -0.0101, 0.0121, 0.215, 0.6027, 0.0574, -0.1615],
    // contradicts
    [-0.7224, 0.0068, -0.439, 0.0846, 0.1561, 1.2205, 0.4278, 0.3935, 0.1343, 0.077, 0.0612, 0.1937, 0.6964, -0.3271, 0.4213, 0.5511, 1.22, -0.0252, 0.911, 0.8645, 0.3126, -0.0515, -0.4126, 0.0937, 0.3302],
    // neutral
    [1.1149, -1.5908, -0.1625, 0.1994, 0.0466, -0.4033, -0.4899, 0.0889, 0.2391, -0.1784, 0.045, -1.002, -0.3337, 0.0373, -0.3224, -0.2185, -0.693, -0.3733, -0.1525, -0.8544, -0.3246, -0.1635, -0.1901, -0.1511, -0.1687],
  ],
};

export const VERDICT_THRESHOLDS: VerdictThresholds = { minimum: 0.575, contradictionMargin: 1.1 };

export const CONFIDENCE_CALIBRATION: ConfidenceCalibration = { support: [-3.2815, 5.5979], contradiction: [-1.8391, 2.1158] };
