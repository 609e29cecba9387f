// Written by bench/validate/train-stance.ts from SciFact's training claims (809); do not edit by hand.
import type { StanceModel } from './model.js';
import type { ConfidenceCalibration, VerdictThresholds } from './verdict.js';

export const STANCE_MODEL: StanceModel = {
  features: ['bias', 'coverage', 'coverage squared', 'bigrams', 'negation mismatch', 'direction mismatch', 'direction agreement', 'polarity mismatch', 'number conflict', 'number shared', 'sentence hedged', 'sentence negated', 'claim negated', 'coverage added by the previous sentence', 'direction mismatch after the previous sentence', 'polarity mismatch after the previous sentence', 'direction mismatch beside claim terms', 'direction agreement beside claim terms', 'negation mismatch beside claim terms', 'plain coverage', 'entity coverage', 'entity replaced', 'sentence about the claim', 'hedge beside claim terms', 'claim hedged', 'source coverage'],
  weights: [
    // supports
    [-0.3896, 1.6222, 0.5954, -0.2767, -0.2138, -0.9302, -0.0009, -0.5075, -0.3812, 0.1133, -0.106, 0.817, -0.3728, 0.2698, -0.1472, -0.3067, -0.5484, 0.4512, -0.7448, -0.0115, 0.0126, 0.2045, 0.5453, 0.0507, -0.16, 0.0214],
    // contradicts
    [-1.0417, -0.1709, -0.5275, 0.0456, 0.1417, 1.3353, 0.4856, 0.3896, 0.144, 0.0518, 0.0652, 0.1954, 0.7027, -0.5559, 0.5562, 0.4474, 1.2398, -0.1732, 0.9199, 0.8644, 0.3146, -0.0593, -0.4061, 0.0783, 0.3621, 0.5968],
    // neutral
    [1.4313, -1.4513, -0.0679, 0.2311, 0.0721, -0.4051, -0.4847, 0.1179, 0.2372, -0.1651, 0.0409, -1.0123, -0.3299, 0.2861, -0.409, -0.1407, -0.6914, -0.278, -0.1751, -0.8529, -0.3272, -0.1453, -0.1392, -0.129, -0.2021, -0.6181],
  ],
};

export const VERDICT_THRESHOLDS: VerdictThresholds = { minimum: 0.55, contradictionMargin: 1.1 };

export const CONFIDENCE_CALIBRATION: ConfidenceCalibration = { support: [-3.3741, 5.6795], contradiction: [-1.8949, 2.3199] };
