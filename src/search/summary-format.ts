import { renderCited, withoutCitationMarks, type CitedSentence } from './summarizer/citations.js';

export type SummaryFormat = 'text' | 'markdown' | 'html' | 'json';

/** The structured summary of format `json`: each sentence with the numbers of the sources it cites. */
export interface StructuredSummary {
  sentences: { text: string; citations: number[] }[];
}

/**
 * A cited summary in the requested format. Citation [n] always means sources[n - 1] of the same
 * response (a sentence's own bracketed numbers are put in parentheses: withoutCitationMarks): in
 * `text` it stays "[n]", in `markdown` it links to the source's URL, in `html` it is
 * a superscript link (the sentence text escaped), and `json` keeps the numbers apart from the text.
 */
export function renderSummary(cited: readonly CitedSentence[], format: SummaryFormat, sources: readonly { url: string }[]): string | StructuredSummary {
  const sentences = cited.map((s) => ({ text: withoutCitationMarks(s.text), citations: s.citations }));
  switch (format) {
    case 'text':
      return renderCited(sentences);
    case 'markdown':
      return sentences.map((s) => [s.text, s.citations.map((n) => markdownCitation(n, sources[n - 1]!.url)).join('')].filter(Boolean).join(' ')).join(' ');
    case 'html':
      return `<p>${sentences.map((s) => `${escapeHtml(s.text)}${s.citations.map((n) => htmlCitation(n, sources[n - 1]!.url)).join('')}`).join(' ')}</p>`;
    case 'json':
      return { sentences: sentences.map((s) => ({ text: s.text, citations: [...s.citations] })) };
  }
}

/** A source without a URL (a text POST /v1/summarize was sent) is cited without a link. */
function markdownCitation(n: number, url: string): string {
  return url === '' ? `[${n}]` : `[[${n}]](${markdownUrl(url)})`;
}

function htmlCitation(n: number, url: string): string {
  return url === '' ? `<sup>[${n}]</sup>` : `<sup><a href="${escapeHtml(url)}">[${n}]</a></sup>`;
}

/** Parentheses and spaces would end a Markdown link target early (encodeURIComponent leaves parentheses alone). */
function markdownUrl(url: string): string {
  return url.replace(/[()\s]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
