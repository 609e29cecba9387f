// The index's one way into text analysis (workers/pool/analysis/): index terms, query terms and
// passages all come from here, so documents and queries are always analysed alike.
export { analyze, analyzeQuery } from '../../workers/pool/analysis/analyze.js';
export { splitPassages } from '../../workers/pool/analysis/passages.js';
export { analysisLanguage } from '../../workers/pool/analysis/analysis-language.js';
