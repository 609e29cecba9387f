import type { JudgeClaimOutput } from '../stance/judge-claim.js';
import { VERDICT_THRESHOLDS } from '../stance/model-weights.js';
import type { ConsensusLevel, EvidenceItem, FactCheckVerdict, ValidateRequest, ValidationLabel, ValidationResult } from './types.js';

/** A verdict this sure (and at least options.confidence_threshold) is VERIFIED or FALSE rather than LIKELY_…. */
const DECISIVE = 0.85;

const FACT_CHECK: Record<ValidationLabel, FactCheckVerdict> = {
  VERIFIED: 'TRUE', LIKELY_TRUE: 'MOSTLY_TRUE', DISPUTED: 'MIXED', LIKELY_FALSE: 'MOSTLY_FALSE', FALSE: 'FALSE', UNVERIFIED: 'UNPROVEN', OPINION: 'UNPROVEN',
};

type Labels = Pick<ValidationResult, 'validation_result' | 'confidence_score' | 'consensus_level' | 'fact_check_summary'>;

/**
 * The labels of a judged claim (documented in the README, "Validation"):
 *  - an opinion (context.claim_type "opinion") is OPINION: no verdict, confidence 0;
 *  - with options.require_primary_sources and no primary source among the sources: UNVERIFIED,
 *    confidence 0 (otherwise only primary sources decide the verdict);
 *  - both sides strong (each at the model's verdict minimum, from different sources): DISPUTED;
 *  - SUPPORT at options.confidence_threshold or more: VERIFIED from 0.85, else LIKELY_TRUE; CONTRADICT
 *    likewise FALSE or LIKELY_FALSE; anything else UNVERIFIED;
 *  - confidence_score: the probability behind the verdict (for UNVERIFIED, 1 minus the stronger side).
 */
export function resultLabels(judged: JudgeClaimOutput, evidence: ValidationResult['evidence'], request: ValidateRequest, noPrimarySource: boolean): Labels {
  const consensus = consensusLevel(evidence.supporting.length, evidence.contradicting.length);
  const threshold = request.options.confidence_threshold;
  let label: ValidationLabel;
  let confidence: number;
  if (request.context?.claim_type === 'opinion') {
    label = 'OPINION';
    confidence = 0;
  } else if (noPrimarySource) {
    label = 'UNVERIFIED';
    confidence = 0;
  } else if (Math.min(judged.verdictSupport, judged.verdictContradiction) >= VERDICT_THRESHOLDS.minimum && evidence.supporting.length > 0 && evidence.contradicting.length > 0) {
    label = 'DISPUTED';
    confidence = Math.max(judged.support, judged.contradiction);
  } else if (judged.verdict === 'SUPPORT' && judged.support >= threshold) {
    label = judged.support >= Math.max(threshold, DECISIVE) ? 'VERIFIED' : 'LIKELY_TRUE';
    confidence = judged.support;
  } else if (judged.verdict === 'CONTRADICT' && judged.contradiction >= threshold) {
    label = judged.contradiction >= Math.max(threshold, DECISIVE) ? 'FALSE' : 'LIKELY_FALSE';
    confidence = judged.contradiction;
  } else {
    label = 'UNVERIFIED';
    confidence = 1 - Math.max(judged.support, judged.contradiction);
  }
  return {
    validation_result: label,
    confidence_score: Math.round(confidence * 1000) / 1000,
    consensus_level: consensus,
    fact_check_summary: {
      verdict: FACT_CHECK[label],
      explanation: noPrimarySource && label === 'UNVERIFIED'
        ? `Primary sources were required and none was found among the ${evidence.supporting.length + evidence.contradicting.length + evidence.neutral.length} sources checked, so no verdict is given.`
        : explanation(label, evidence),
    },
  };
}

/** Agreement among the sources that take a side. */
export function consensusLevel(supporting: number, contradicting: number): ConsensusLevel {
  const sided = supporting + contradicting;
  if (sided === 0) return 'NONE';
  const share = Math.max(supporting, contradicting) / sided;
  if (Math.min(supporting, contradicting) > 0 && share < 0.75) return 'CONFLICTING';
  if (sided >= 3 && share >= 0.9) return 'STRONG';
  if (sided >= 2 && share >= 0.75) return 'MODERATE';
  return 'WEAK';
}

function explanation(label: ValidationLabel, evidence: ValidationResult['evidence']): string {
  const counts = `${evidence.supporting.length} supporting, ${evidence.contradicting.length} contradicting and ${evidence.neutral.length} neutral sources.`;
  const quote = (item: EvidenceItem | undefined, side: string) =>
    item ? `${side} ${item.source} (confidence ${item.confidence}${item.judged_by === 'llm' ? ', judged by the model judge' : ''}): "${item.snippet}"` : '';
  switch (label) {
    case 'OPINION':
      return `An opinion is neither true nor false, so no verdict is given; the sources that speak to it are listed. ${counts}`;
    case 'DISPUTED':
      return `The sources disagree. ${quote(evidence.supporting[0], 'For:')} ${quote(evidence.contradicting[0], 'Against:')} ${counts}`;
    case 'VERIFIED':
    case 'LIKELY_TRUE':
      return `Decided by ${quote(evidence.supporting[0], 'the supporting source')} ${counts}`;
    case 'FALSE':
    case 'LIKELY_FALSE':
      return `Decided by ${quote(evidence.contradicting[0], 'the contradicting source')} ${counts}`;
    default:
      return `No source says clearly enough whether the claim holds. ${counts}`;
  }
}
