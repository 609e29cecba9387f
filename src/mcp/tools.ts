/**
 * The MCP tools: search, extract, summarize, validate, crawl and index_documents, each an
 * ordinary call of the HTTP API through the typed client, so a tool call is authenticated,
 * authorised, rate-limited, metered, validated and audited as the same request sent over HTTP.
 * Input schemas are the API's own request schemas (schemas/), references inlined; results are
 * text, sized by max_tokens; a refusal is a tool error that names the catalogue's code and
 * says what to do about it.
 */
import { SevError, type Schemas, type SevClient } from '../../clients/typescript/src/index.js';
import { schemaDocuments } from '../schema/request-validator.js';

/** max_tokens of search, extract and summarize when the model gives none: an answer that leaves room in its context. */
export const DEFAULT_TOOL_TOKENS = 2000;

export interface ToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  isError?: boolean;
}

export interface Tool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  call(client: SevClient, input: Record<string, unknown>): Promise<string>;
}

type Json = Record<string, unknown>;

export const TOOLS: readonly Tool[] = [
  {
    name: 'search',
    description: 'Search the web index for a question or topic and get a short summary whose sentences cite numbered sources [n], followed by those sources (title, URL, best passage). '
      + 'Use it to find information when you do not have a URL. Narrow it with language, country, recency or domain_filter; set chunks_per_source (1-5) for longer passages per source. '
      + `The answer is cut to max_tokens (default ${DEFAULT_TOOL_TOKENS}).`,
    inputSchema: requestSchema('search.request'),
    async call(client, input) {
      const answer = await client.search({ ...sized(input), format: 'text' } as Schemas['search.request']);
      return searchText(answer);
    },
  },
  {
    name: 'extract',
    description: 'Read one web page or PDF by its URL and get its main content (no navigation, ads or comments) as Markdown or text, with its title and metadata. '
      + 'Use it to read a page you already know. For RAG ingestion, chunking {max_tokens} returns the content in chunks with their heading paths. '
      + `The answer is cut to max_tokens (default ${DEFAULT_TOOL_TOKENS}).`,
    inputSchema: requestSchema('extract.request'),
    async call(client, input) {
      return extractText(await client.extract(sized(input) as Schemas['extract.request']));
    },
  },
  {
    name: 'summarize',
    description: 'Summarise 1-10 web pages (urls) or a text you give, optionally focused on a query; every sentence cites its source [n]. '
      + 'Use it to condense pages or long text; method "abstractive" asks the configured language model instead of picking sentences. '
      + `The answer is cut to max_tokens (default ${DEFAULT_TOOL_TOKENS}).`,
    inputSchema: requestSchema('summarize.request'),
    async call(client, input) {
      return summaryText(await client.summarize({ ...sized(input), format: 'text' } as Schemas['summarize.request']));
    },
  },
  {
    name: 'validate',
    description: 'Check whether a factual claim is true against evidence from the index, the web or the sources you name, and get a verdict (VERIFIED, LIKELY_TRUE, DISPUTED, LIKELY_FALSE, FALSE, UNVERIFIED, OPINION), its confidence and the evidence for and against. '
      + 'Use it to fact-check one specific statement.',
    inputSchema: requestSchema('validate.request'),
    async call(client, input) {
      return validationText(await client.validate(input as Schemas['validate.request']));
    },
  },
  {
    name: 'crawl',
    description: 'Crawl a website into the search index, then poll it. Start: give urls (and optionally max_pages, max_depth, include, exclude globs); the answer has a crawl_id. '
      + 'Poll: give crawl_id alone to see its state and page counts (crawls take seconds to minutes). Cancel: give crawl_id with cancel true. Crawled pages become searchable with the search tool.',
    inputSchema: crawlSchema(),
    async call(client, input) {
      const { crawl_id: id, cancel, ...start } = input;
      if (typeof id === 'string') return crawlText(cancel === true ? await client.cancelCrawl(id) : await client.crawl(id));
      return crawlText(await client.startCrawl(start as Schemas['crawl-create.request']));
    },
  },
  {
    name: 'index_documents',
    description: 'Add documents you already have (url, title, content as text, Markdown or HTML) to the search index, so that the search tool finds them. '
      + 'Up to 50 are indexed at once; a larger batch becomes a job whose progress is reported.',
    inputSchema: requestSchema('index-documents.request'),
    async call(client, input) {
      return indexText(await client.indexDocuments(input as Schemas['index-documents.request']));
    },
  },
];

/** Runs a tool; what the API refuses comes back as a tool error, not a protocol error, so the model can read it and act. */
export async function callTool(client: SevClient, name: string, input: Json): Promise<ToolResult> {
  const tool = TOOLS.find((t) => t.name === name);
  if (!tool) return toolError(`Unknown tool ${name}; the tools are ${TOOLS.map((t) => t.name).join(', ')}.`);
  try {
    return { content: [{ type: 'text', text: await tool.call(client, input) }] };
  } catch (error) {
    if (!(error instanceof SevError)) throw error;
    const lines = [`Error ${error.code} (HTTP ${error.status}): ${error.message.replace(`${error.code}: `, '')}`];
    if (error.details && Object.keys(error.details).length > 0) lines.push(`Details: ${JSON.stringify(error.details)}`);
    if (error.suggestion) lines.push(`Suggestion: ${error.suggestion}`);
    lines.push(error.retryable ? 'This may succeed if retried later.' : 'Retrying the same call will not help.');
    return toolError(lines.join('\n'));
  }
}

function toolError(text: string): ToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

function sized(input: Json): Json {
  return { ...input, max_tokens: input.max_tokens ?? DEFAULT_TOOL_TOKENS };
}

function searchText(answer: Schemas['search.response']): string {
  const sources = (answer.sources ?? []).map((s, i) => [
    `[${i + 1}] ${s.title || s.url}`,
    `    ${s.url}${s.published_date ? ` (published ${s.published_date.slice(0, 10)})` : ''}, confidence ${s.confidence}`,
    ...(s.chunks ?? (s.snippet ? [s.snippet] : [])).map((text) => `    ${text.replace(/\s+/g, ' ')}`),
  ].join('\n'));
  return [
    String(answer.summary),
    ...(sources.length > 0 ? ['', 'Sources:', ...sources] : []),
    ...cutNote(answer),
  ].join('\n');
}

function extractText(answer: Schemas['extract.response']): string {
  const meta = answer.metadata ?? {};
  const header = [
    meta.title ? `# ${meta.title}` : '',
    `URL: ${answer.final_url ?? answer.url ?? ''}`,
    [meta.author, meta.published_date?.slice(0, 10), meta.site_name].filter(Boolean).join(', '),
  ].filter(Boolean);
  const body = answer.chunks
    ? answer.chunks.map((c, i) => `--- chunk ${i + 1}${c.heading_path.length ? ` (${c.heading_path.join(' > ')})` : ''}, ${c.tokens} tokens ---\n${typeof c.content === 'string' ? c.content : JSON.stringify(c.content)}`)
    : [typeof answer.content === 'string' ? answer.content : JSON.stringify(answer.content)];
  const links = (answer.links ?? []).map((l) => `- ${l.text ?? ''} ${l.url}`);
  return [...header, '', ...body, ...(links.length ? ['', 'Links:', ...links] : []), ...cutNote(answer)].join('\n');
}

function summaryText(answer: Schemas['summarize.response']): string {
  const sources = (answer.sources ?? []).map((s, i) => `[${i + 1}] ${s.title || s.url || 'text'}${s.url ? ` ${s.url}` : ''}`);
  const failed = answer.metadata.sources_failed.map((f) => `- ${f.source}: ${f.code} (${f.reason})`);
  return [
    String(answer.summary),
    ...(sources.length ? ['', 'Sources:', ...sources] : []),
    ...(failed.length ? ['', 'Not read:', ...failed] : []),
    ...(answer.metadata.query_matched === false ? ['', 'Nothing in the sources spoke to the query: this is a summary of what they say.'] : []),
    ...cutNote(answer),
  ].join('\n');
}

function validationText(answer: Schemas['validate.response']): string {
  const side = (name: string, items: { source: string; snippet: string }[]) => items.length === 0 ? []
    : [`${name}:`, ...items.slice(0, 5).map((e) => `- ${e.source}: ${e.snippet.replace(/\s+/g, ' ')}`)];
  return [
    `Verdict: ${answer.validation_result} (confidence ${answer.confidence_score}, consensus ${answer.consensus_level})`,
    answer.fact_check_summary.explanation,
    ...side('Supporting', answer.evidence.supporting),
    ...side('Contradicting', answer.evidence.contradicting),
    ...answer.metadata.sources_failed.map((f) => `Not read: ${f.source}: ${f.code} (${f.reason})`),
  ].join('\n');
}

function crawlText(crawl: Schemas['crawl-job.response']): string {
  const pages = crawl.pages;
  return [
    `Crawl ${crawl.crawl_id}: ${crawl.state}`,
    `Pages: ${pages.fetched} fetched, ${pages.failed} failed, ${pages.discovered} discovered.`,
    ...(crawl.failure ? [`Failure: ${crawl.failure.code}: ${crawl.failure.message}`] : []),
    crawl.state === 'queued' || crawl.state === 'running' ? `Poll again with {"crawl_id": "${crawl.crawl_id}"}.` : 'Finished: its pages are in the index.',
  ].join('\n');
}

function indexText(answer: Schemas['index-documents.response']): string {
  const counts = answer.counts ? Object.entries(answer.counts).map(([k, v]) => `${k} ${v}`).join(', ') : '';
  return [
    `Batch of ${answer.total}: ${answer.state}${counts ? ` (${counts})` : ''}.`,
    ...answer.errors.map((e) => `Refused document ${e.index}: ${e.field ?? 'document'} ${e.reason}`),
    ...(answer.state !== 'completed' && answer.job_id ? [`Job ${answer.job_id} goes on.`] : []),
  ].join('\n');
}

function cutNote(answer: { truncated?: boolean; budget?: { max_tokens: number; omitted_tokens: number } }): string[] {
  return answer.truncated && answer.budget
    ? ['', `(Cut to max_tokens ${answer.budget.max_tokens}: about ${answer.budget.omitted_tokens} tokens left out; ask with a larger max_tokens for more.)`]
    : [];
}

/** A request schema of schemas/, self-contained: references to other schemas inlined, as MCP clients read one object schema per tool. */
function requestSchema(id: string): Json {
  const documents = schemaDocuments() as Record<string, Json>;
  const inline = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(inline);
    if (typeof node !== 'object' || node === null) return node;
    const ref = (node as Json).$ref;
    if (typeof ref === 'string' && !ref.startsWith('#')) {
      const [target, pointer] = ref.split('#') as [string, string | undefined];
      let referenced: unknown = documents[target];
      for (const key of (pointer ?? '').split('/').filter(Boolean)) referenced = (referenced as Json)[key];
      const { $id: _id, $schema: _schema, ...rest } = referenced as Json;
      return inline(rest);
    }
    return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, key === 'default' || key === 'examples' || key === 'enum' ? value : inline(value)]));
  };
  const { $id: _id, $schema: _schema, ...schema } = documents[id]!;
  return inline(schema) as Json;
}

function crawlSchema(): Json {
  const start = requestSchema('crawl-create.request');
  return {
    type: 'object',
    description: 'Start a crawl (urls and options), poll one (crawl_id), or cancel one (crawl_id and cancel).',
    additionalProperties: false,
    properties: {
      ...(start.properties as Json),
      crawl_id: { type: 'string', description: 'A crawl to poll (alone) or cancel (with cancel: true); leave out to start one.' },
      cancel: { type: 'boolean', description: 'With crawl_id: cancel the crawl.' },
    },
  };
}
