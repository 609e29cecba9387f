import type { Job } from 'bullmq';
import { runValidation, type ValidateDeps } from '../validate/run-validation.js';
import type { ValidateJob, ValidationResult } from '../validate/types.js';
import type { JobEnvelope } from '../queue/queues.js';

/** BullMQ processor of the validate queue. */
export function createValidateProcessor(deps: ValidateDeps) {
  return (job: Job<JobEnvelope<ValidateJob>>): Promise<ValidationResult> => runValidation(deps, job.data.mode, job.data.input);
}
