/**
 * The pool task that cleans a fetched page for its reader (read-page.ts): the page decoded from
 * its bytes here, off the worker's event loop (a decoded page is mostly a two-byte string, twice
 * its bytes to copy to the thread, and decoding it is work too), then cleanHtml; and for a page
 * that will be indexed, its text analysed for the index (prepareDocuments) in the same task, so
 * the text stays in the thread that made it, and the block model answered as the JSON the
 * extraction row stores rather than a tree of objects to copy back and serialise there.
 *
 * The analysis is exactly what the index would ask of prepareDocuments for the same title, text
 * and language (store() in src/extract/extract-page.ts indexes those three).
 */
import { cleanHtmlTask, type CleanHtmlInput, type CleanHtmlOutput, type TooComplexPage } from '../html/clean-html.js';
import { prepareDocuments, type PreparedDocument } from '../index/prepare-documents.js';
import { decodeBody } from './decode-body.js';

/** The page as text already decoded (a rendered DOM, a page its reader decoded for itself), or as the bytes fetched. */
export type PageSource = { html: string } | { body: Uint8Array; charset?: string };

export type CleanPageInput = Omit<CleanHtmlInput, 'html'> & PageSource & {
  /** Also analyse the page for the index and answer its blocks as JSON (a PreparedPage). */
  prepareForIndex?: boolean;
};

export interface PreparedPage extends Omit<CleanHtmlOutput, 'blocks'> {
  /** The block model as JSON. */
  blocksJson: string;
  /** The cleaned page as the index analyses it. */
  prepared: PreparedDocument;
}

export function cleanPageTask(input: CleanPageInput): CleanHtmlOutput | PreparedPage | TooComplexPage {
  // cleanHtml reads the fields it knows; the bytes and the flag go along unread.
  const cleaned = cleanHtmlTask({ ...input, html: 'html' in input ? input.html : decodeBody(input.body, input.charset) });
  if ('tooComplex' in cleaned || !input.prepareForIndex) return cleaned;
  const [prepared] = prepareDocuments({ documents: [{ title: cleaned.metadata.title, text: cleaned.text, language: cleaned.metadata.language }] });
  const { blocks, ...page } = cleaned;
  return { ...page, blocksJson: JSON.stringify(blocks), prepared: prepared! };
}
