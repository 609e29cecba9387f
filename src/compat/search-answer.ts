/**
 * The search's answer as the compatibility endpoints read it: a cached answer is stored as JSON
 * text (served as it is by POST /v1/search), which they parse, since they reshape it.
 */
import type { SearchAnswer } from '../search/search-service.js';
import type { SearchResult } from '../search/types.js';

export function searchResultOf(answer: SearchAnswer): SearchResult {
  return answer.cached ? JSON.parse(answer.resultJson) as SearchResult : answer.result;
}
