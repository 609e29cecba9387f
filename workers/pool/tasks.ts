// Piscina task module: every named export is a pure, CPU-bound task (no I/O, no shared state).
export { cleanHtml, renderStored } from './clean-html.js';
export { extractiveSummary } from './extractive-summary.js';
export { prepareDocuments } from './prepare-documents.js';
export { mergePostings } from './merge-postings.js';
export { scoreSegments } from './score-segments.js';
export { rankSources } from './rank-sources.js';
export { judgeClaim } from './stance/judge-claim.js';
