import type { Job } from 'bullmq';
import { runValidation, type ValidateDeps } from '../src/validate/run-validation.js';
import type { ValidateJob, ValidationResult } from '../src/validate/types.js';
import type { JobEnvelope } from '../src/queue/queues.js';

/** BullMQ processor of the validate queue. */
export function createValidateProcessor(deps: ValidateDeps) {
  return (job: Job<JobEnvelope<ValidateJob>>): Promise<ValidationResult> => runValidation(deps, job.data.mode, job.data.input);
}
