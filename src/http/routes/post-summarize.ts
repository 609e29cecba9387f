import { ApiError } from '../../errors/catalogue.js';
import { arrivedAt, caller, respond } from '../context.js';
import { sha256Hex } from '../../storage/hash.js';
import { normaliseQuery } from '../../cache/cache-key.js';
import type { SummarizeRequest } from '../../summarize/types.js';
import type { Route } from './route.js';

export const postSummarize: Route<SummarizeRequest> = {
  operationId: 'summarize',
  method: 'POST',
  path: '/v1/summarize',
  summary: 'Summarise pages or a text, optionally focused on a query: a summary citing its sources',
  tag: 'Core',
  scope: 'summarize',
  body: 'summarize.request',
  response: 'summarize.response',
  check({ body }) {
    if ((body.urls === undefined) === (body.text === undefined)) {
      throw invalid(body.urls === undefined ? 'urls' : 'text', 'send exactly one of urls and text', body.urls === undefined ? null : 'both');
    }
    if (body.title !== undefined && body.text === undefined) throw invalid('title', 'is for a text: send it with text', body.title);
    if (body.max_sentences !== undefined && body.max_words !== undefined) throw invalid('max_words', 'send at most one of max_sentences and max_words', body.max_words);
  },
  async handler(ctx, { body: request }, services) {
    ctx.state.audit = {
      ...(request.urls ? { url: request.urls[0] } : {}),
      ...(request.query !== undefined ? { query_hash: `sha256:${sha256Hex(normaliseQuery(request.query))}` } : {}),
    };
    const result = await services.summarize.summarize(caller(ctx), request, arrivedAt(ctx));
    ctx.state.audit = { ...ctx.state.audit, word_count: result.metadata.word_count.summary, sources_analyzed: result.metadata.sources_read };
    respond(ctx, result);
  },
};

function invalid(parameter: string, reason: string, provided: unknown): ApiError {
  return new ApiError('INVALID_PARAMETER', { parameter, reason, provided }, `${parameter}: ${reason}`);
}
