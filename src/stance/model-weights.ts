// Written by bench/validate/train-stance.ts from SciFact's training claims (809); do not edit by hand.
import type { StanceModel } from './model.js';
import type { ConfidenceCalibration, VerdictThresholds } from './verdict.js';

export const STANCE_MODEL: StanceModel = {
  features: ['bias', 'coverage', 'coverage squared', 'bigrams', 'negation mismatch', 'direction mismatch', 'direction agreement', 'polarity mismatch', 'number conflict', 'number shared', 'sentence hedged', 'sentence negated', 'claim negated', 'coverage added by the previous sentence', 'direction mismatch after the previous sentence', 'polarity mismatch after the previous sentence', 'direction mismatch beside claim terms', 'direction agreement beside claim terms', 'negation mismatch beside claim terms', 'plain coverage', 'entity coverage', 'entity replaced', 'sentence about the claim', 'hedge beside claim terms', 'claim hedged', 'source coverage'],
  weights: [
    // supports
    [-0.3903, 1.6232, 0.6271, -0.2878, -0.2026, -0.8393, 0.0183, -0.5301, -0.3754, 0.1259, -0.1066, 0.8101, -0.3707, 0.2736, -0.1857, -0.3105, -0.5303, 0.4004, -0.742, -0.0503, 0.0117, 0.2168, 0.5747, 0.0542, -0.1628, 0.0237],
    // contradicts
    [-1.0424, -0.166, -0.5539, 0.0585, 0.1299, 1.2189, 0.4307, 0.4065, 0.1336, 0.0383, 0.0639, 0.1965, 0.7011, -0.5599, 0.5931, 0.4562, 1.2283, -0.0556, 0.9123, 0.9035, 0.3162, -0.08, -0.4378, 0.0717, 0.3599, 0.596],
    // neutral
    [1.4327, -1.4572, -0.0732, 0.2294, 0.0727, -0.3795, -0.449, 0.1236, 0.2418, -0.1642, 0.0427, -1.0066, -0.3303, 0.2863, -0.4075, -0.1457, -0.698, -0.3448, -0.1703, -0.8532, -0.3279, -0.1367, -0.1369, -0.1259, -0.197, -0.6197],
  ],
};

export const VERDICT_THRESHOLDS: VerdictThresholds = { minimum: 0.55, contradictionMargin: 1 };

export const CONFIDENCE_CALIBRATION: ConfidenceCalibration = { support: [-3.4569, 5.8024], contradiction: [-1.8893, 2.298] };
