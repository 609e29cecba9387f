import type { ReadFailure } from '../page/read-failure.js';
import type { SearxngFailure } from '../search/upstream/searxng.js';
import type { JudgedBy } from '../stance/combine-judgements.js';
import type { JudgeOutcome } from './llm-judge.js';

/**
 * POST /v1/validate as the route validated it (schemas/validate.request.json, defaults filled)
 * and the data it answers (schemas/validate.response.json, section 2.3 of the specification).
 */
export interface ValidateRequest {
  claim: string;
  sources?: string[];
  context?: { domain?: string; claim_type?: 'factual' | 'statistical' | 'opinion'; time_sensitive?: boolean };
  options: { confidence_threshold: number; require_primary_sources: boolean; max_sources: number; timeout: number };
}

/** What a validation job carries: the request and the moment its time runs out. */
export interface ValidateJob {
  request: ValidateRequest;
  /** Epoch ms: options.timeout from the request's arrival. */
  deadline: number;
}

export interface EvidenceItem {
  source: string;
  confidence: number;
  authority_score: number;
  snippet: string;
  /** Whether it is a primary source for the claim (see primary.ts). */
  primary: boolean;
  /** Which model decided its stance: the model judge (VALIDATION_JUDGE=llm) or the built-in one. */
  judged_by: JudgedBy;
  /** When the source was published, where known. */
  published_date?: string;
  /** With context.time_sensitive: published over a year ago. */
  outdated?: boolean;
}

/**
 * A source that could not be read: in metadata.sources_failed of an answer, and in the
 * failed_sources of INSUFFICIENT_SOURCES when none could be. Its code is the one reading it
 * alone would have given (URL_INVALID, URL_UNREACHABLE or EXTRACTION_FAILED, as extraction
 * answers them), NO_RESULTS_FOUND for a domain the index holds nothing about,
 * VALIDATION_TIMEOUT for one still being read at the time limit, INTERNAL_SERVER_ERROR for
 * anything else.
 */
export type FailedSource = ReadFailure;

export type ValidationLabel = 'VERIFIED' | 'LIKELY_TRUE' | 'DISPUTED' | 'LIKELY_FALSE' | 'FALSE' | 'UNVERIFIED' | 'OPINION';
export type ConsensusLevel = 'STRONG' | 'MODERATE' | 'WEAK' | 'CONFLICTING' | 'NONE';
export type FactCheckVerdict = 'TRUE' | 'MOSTLY_TRUE' | 'MIXED' | 'MOSTLY_FALSE' | 'FALSE' | 'UNPROVEN';

export interface ValidationResult {
  validation_result: ValidationLabel;
  confidence_score: number;
  consensus_level: ConsensusLevel;
  evidence: { supporting: EvidenceItem[]; contradicting: EvidenceItem[]; neutral: EvidenceItem[] };
  fact_check_summary: { verdict: FactCheckVerdict; explanation: string };
  metadata: {
    sources_checked: number;
    /** Sources that could not be read, with why. */
    sources_failed: FailedSource[];
    /** Sources whose text copies an earlier one's: counted once, under the original. */
    sources_merged: { source: string; copy_of: string }[];
    query_time: number;
    /** How the upstream engine answered, when it was asked. */
    upstream_engine?: 'answered' | SearxngFailure;
    /** With the model judge on: each key passage it was asked about, by source, and how that went. */
    judge?: { passages: { source: string; outcome: JudgeOutcome }[] };
  };
}
