// Written by bench/validate/train-stance.ts from SciFact's training claims (809); do not edit by hand.
import type { StanceModel } from './model.js';
import type { ConfidenceCalibration, VerdictThresholds } from './verdict.js';

export const STANCE_MODEL: StanceModel = {
  features: ['bias', 'coverage', 'coverage squared', 'bigrams', 'negation mismatch', 'direction mismatch', 'direction agreement', 'polarity mismatch', 'number conflict', 'number shared', 'sentence hedged', 'sentence negated', 'claim negated', 'coverage added by the previous sentence', 'direction mismatch after the previous sentence', 'polarity mismatch after the previous sentence', 'direction mismatch beside claim terms', 'direction agreement beside claim terms', 'negation mismatch beside claim terms', 'plain coverage', 'entity coverage', 'entity replaced', 'sentence about the claim', 'hedge beside claim terms', 'claim hedged', 'source coverage'],
  weights: [
    // supports
    [-0.3897, 1.6237, 0.5962, -0.2764, -0.2148, -0.9398, -0.0083, -0.5053, -0.3815, 0.1131, -0.1053, 0.8169, -0.3731, 0.2695, -0.1451, -0.305, -0.5512, 0.448, -0.7451, -0.0106, 0.0124, 0.2054, 0.5448, 0.0503, -0.1599, 0.0216],
    // contradicts
    [-1.0417, -0.1702, -0.5274, 0.0448, 0.1415, 1.325, 0.4793, 0.3902, 0.1439, 0.0525, 0.0646, 0.1962, 0.7024, -0.5565, 0.5583, 0.4485, 1.2377, -0.1751, 0.9198, 0.8646, 0.3149, -0.061, -0.4043, 0.0798, 0.3619, 0.5969],
    // neutral
    [1.4314, -1.4535, -0.0689, 0.2316, 0.0732, -0.3852, -0.471, 0.1151, 0.2375, -0.1656, 0.0407, -1.013, -0.3293, 0.287, -0.4132, -0.1434, -0.6865, -0.2728, -0.1747, -0.854, -0.3272, -0.1444, -0.1405, -0.13, -0.202, -0.6186],
  ],
};

export const VERDICT_THRESHOLDS: VerdictThresholds = { minimum: 0.55, contradictionMargin: 1.1 };

export const CONFIDENCE_CALIBRATION: ConfidenceCalibration = { support: [-3.3974, 5.7202], contradiction: [-1.8593, 2.2806] };
