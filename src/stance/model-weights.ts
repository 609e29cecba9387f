// Written by bench/validate/train-stance.ts from SciFact's training claims (809); do not edit by hand.
import type { StanceModel } from './model.js';
import type { ConfidenceCalibration, VerdictThresholds } from './verdict.js';

export const STANCE_MODEL: StanceModel = {
  features: ['bias', 'coverage', 'coverage squared', 'bigrams', 'negation mismatch', 'direction mismatch', 'direction agreement', 'polarity mismatch', 'number conflict', 'number shared', 'sentence hedged', 'sentence negated', 'claim negated', 'coverage added by the previous sentence', 'direction mismatch after the previous sentence', 'polarity mismatch after the previous sentence', 'direction mismatch beside claim terms', 'direction agreement beside claim terms', 'negation mismatch beside claim terms', 'plain coverage', 'entity coverage', 'entity replaced', 'sentence about the claim', 'hedge beside claim terms', 'claim hedged'],
  weights: [
    // supports
    [-0.3922, 1.5816, 0.6079, -0.2846, -0.2045, -0.8123, 0.0623, -0.4805, -0.3743, 0.101, -0.1062, 0.8077, -0.3638, 0.2885, -0.1018, -0.3358, -0.5494, 0.405, -0.7596, -0.0069, 0.011, 0.2145, 0.6045, 0.057, -0.1608],
    // contradicts
    [-0.7231, 0.0108, -0.448, 0.089, 0.1596, 1.2195, 0.4297, 0.3946, 0.1352, 0.0768, 0.0601, 0.1904, 0.6976, -0.3239, 0.4252, 0.5558, 1.2377, -0.0113, 0.9145, 0.8591, 0.3144, -0.0513, -0.4177, 0.0924, 0.3289],
    // neutral
    [1.1153, -1.5924, -0.1599, 0.1956, 0.0448, -0.4072, -0.492, 0.0859, 0.2391, -0.1777, 0.0461, -0.9982, -0.3337, 0.0354, -0.3234, -0.22, -0.6883, -0.3937, -0.1549, -0.8522, -0.3254, -0.1632, -0.1869, -0.1494, -0.1681],
  ],
};

export const VERDICT_THRESHOLDS: VerdictThresholds = { minimum: 0.575, contradictionMargin: 1 };

export const CONFIDENCE_CALIBRATION: ConfidenceCalibration = { support: [-3.2597, 5.5495], contradiction: [-1.8625, 2.0644] };
