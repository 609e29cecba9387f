/** How sentence stances make a claim's verdict (chosen on training claims by bench/validate/train-stance.ts). */
export interface VerdictThresholds {
  /** Below this, neither the best supporting nor the best contradicting sentence is enough: not enough information. */
  minimum: number;
  /** When both sides count, contradiction wins when its pooled probability times this reaches support's (claimVerdict). */
  contradictionMargin: number;
}

export type ClaimVerdict = 'SUPPORT' | 'CONTRADICT' | 'NOT_ENOUGH_INFO';

/**
 * The verdict of a claim from its evidence sentences' stance probabilities (supports,
 * contradicts, neutral). A side counts when one of its sentences reaches `minimum`: one clear
 * rationale is what settles a claim. When neither does, the evidence says nothing decisive.
 * When both do, the sentences that clearly take a side (either probability at `minimum`) are
 * pooled, and the side with the larger sum (contradiction's times the margin) wins: several
 * sentences that read one way outweigh one that reads the other, which in a long text is more
 * often a cue of another clause (or another document) than the finding.
 */
export function claimVerdict(sentences: readonly (readonly number[])[], thresholds: VerdictThresholds): ClaimVerdict {
  let support = 0;
  let contradiction = 0;
  let pooledSupport = 0;
  let pooledContradiction = 0;
  for (const [s, c] of sentences) {
    support = Math.max(support, s!);
    contradiction = Math.max(contradiction, c!);
    if (Math.max(s!, c!) >= thresholds.minimum) {
      pooledSupport += s!;
      pooledContradiction += c!;
    }
  }
  const supported = support >= thresholds.minimum;
  const contradicted = contradiction >= thresholds.minimum;
  if (supported && contradicted) return pooledContradiction * thresholds.contradictionMargin >= pooledSupport ? 'CONTRADICT' : 'SUPPORT';
  if (supported) return 'SUPPORT';
  return contradicted ? 'CONTRADICT' : 'NOT_ENOUGH_INFO';
}

/**
 * How a verdict's confidence is read from what its best sentence is worth: for each side, the
 * intercept and slope of a logistic map (Platt scaling) fitted on out-of-fold verdicts of the
 * training claims (bench/validate/train-stance.ts), so that a confidence is the share of such
 * verdicts that were right.
 */
export interface ConfidenceCalibration {
  support: readonly [number, number];
  contradiction: readonly [number, number];
}

/** The calibrated confidence of a side whose best sentence is worth `worth` (0 stays 0: no sentence for that side). */
export function calibrated(worth: number, [a, b]: readonly [number, number]): number {
  return worth <= 0 ? 0 : 1 / (1 + Math.exp(-(a + b * worth)));
}

/**
 * What a key sentence that only suggests ("may lower", "suggests", "likely") is worth, as a
 * share of its probability, in the confidence reported for its source and for the claim: a
 * possibility is weaker evidence than a finding. The verdict itself is drawn from the model's
 * probabilities, which already weigh hedging as one of their features.
 */
export const HEDGED_WEIGHT = 0.8;
