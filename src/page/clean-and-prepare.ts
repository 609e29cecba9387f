/**
 * The pool task behind an extraction that will be indexed: the page cleaned (cleanHtml) and its
 * text analysed for the index (prepareDocuments) in one task, so the text stays in the thread
 * that made it instead of going to the worker's event loop and back to the pool for analysis.
 * The analysis is exactly what the index would ask of prepareDocuments for the same title, text
 * and language (store() in src/extract/extract-page.ts indexes those three). The block model
 * comes back as the JSON the extraction row stores, not as a tree of objects to copy to the
 * worker's event loop and serialise there.
 */
import { cleanHtmlTask, type CleanHtmlInput, type CleanHtmlOutput, type TooComplexPage } from '../html/clean-html.js';
import { prepareDocuments, type PreparedDocument } from '../index/prepare-documents.js';

export interface PreparedPage extends Omit<CleanHtmlOutput, 'blocks'> {
  /** The block model as JSON. */
  blocksJson: string;
  /** The cleaned page as the index analyses it. */
  prepared: PreparedDocument;
}

export function cleanAndPrepare(input: CleanHtmlInput): PreparedPage | TooComplexPage {
  const cleaned = cleanHtmlTask(input);
  if ('tooComplex' in cleaned) return cleaned;
  const [prepared] = prepareDocuments({ documents: [{ title: cleaned.metadata.title, text: cleaned.text, language: cleaned.metadata.language }] });
  const { blocks, ...rest } = cleaned;
  return { ...rest, blocksJson: JSON.stringify(blocks), prepared: prepared! };
}
