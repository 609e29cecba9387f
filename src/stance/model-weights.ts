// Written by bench/validate/train-stance.ts from SciFact's training claims (809); do not edit by hand.
import type { StanceModel } from './model.js';
import type { ConfidenceCalibration, VerdictThresholds } from './verdict.js';

export const STANCE_MODEL: StanceModel = {
  features: ['bias', 'coverage', 'coverage squared', 'bigrams', 'negation mismatch', 'direction mismatch', 'direction agreement', 'polarity mismatch', 'number conflict', 'number shared', 'sentence hedged', 'sentence negated', 'claim negated', 'coverage added by the previous sentence', 'direction mismatch after the previous sentence', 'polarity mismatch after the previous sentence', 'direction mismatch beside claim terms', 'direction agreement beside claim terms', 'negation mismatch beside claim terms', 'plain coverage', 'entity coverage', 'entity replaced', 'sentence about the claim', 'hedge beside claim terms', 'claim hedged', 'source coverage'],
  weights: [
    // supports
    [-0.3952, 1.5761, 0.6142, -0.2889, -0.2103, -0.8248, 0.044, -0.4905, -0.38, 0.0965, -0.1054, 0.8103, -0.3668, 0.2629, -0.0982, -0.3272, -0.5334, 0.3941, -0.7567, -0.0127, 0.0096, 0.2156, 0.5886, 0.056, -0.1608, 0.0279],
    // contradicts
    [-1.0379, -0.1179, -0.5379, 0.0598, 0.1346, 1.1979, 0.4072, 0.3662, 0.1378, 0.0751, 0.0629, 0.1957, 0.6949, -0.5374, 0.4137, 0.5005, 1.234, -0.0537, 0.9272, 0.8731, 0.3189, -0.0794, -0.4576, 0.0696, 0.3563, 0.5912],
    // neutral
    [1.433, -1.4583, -0.0763, 0.2291, 0.0758, -0.373, -0.4512, 0.1242, 0.2422, -0.1716, 0.0424, -1.0061, -0.3281, 0.2745, -0.3155, -0.1733, -0.7006, -0.3405, -0.1705, -0.8604, -0.3285, -0.1362, -0.131, -0.1256, -0.1955, -0.6192],
  ],
};

export const VERDICT_THRESHOLDS: VerdictThresholds = { minimum: 0.55, contradictionMargin: 1.1 };

export const CONFIDENCE_CALIBRATION: ConfidenceCalibration = { support: [-3.2953, 5.5925], contradiction: [-1.9205, 2.3113] };
