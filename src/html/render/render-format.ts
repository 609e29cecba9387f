import type { Block } from '../blocks.js';
import { renderHtml } from './html.js';
import { renderJson, type JsonBlock } from './json.js';
import { renderMarkdown } from './markdown.js';
import { renderText } from './text.js';

export type OutputFormat = 'text' | 'markdown' | 'html' | 'json';

/** Blocks in one of the four formats of extraction. */
export function renderFormat(blocks: Block[], format: OutputFormat, preserveFormatting: boolean): string | JsonBlock[] {
  const options = { preserveFormatting };
  switch (format) {
    case 'text':
      return renderText(blocks, options);
    case 'markdown':
      return renderMarkdown(blocks, options);
    case 'html':
      return renderHtml(blocks, options);
    case 'json':
      return renderJson(blocks);
  }
}
