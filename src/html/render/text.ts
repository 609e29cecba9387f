import type { Block, Inline } from '../blocks.js';

/**
 * The plain-text format: blocks separated by a blank line, list items and table rows one
 * per line (cells joined by " | "). Pictures are left out: text is the prose of the page,
 * images and their captions travel in the `images` list and the richer formats. A PDF's page
 * marker is a line "--- page N ---".
 *
 * With preserveFormatting, line breaks inside a block (<br>) are kept; without it all
 * whitespace inside a block collapses to single spaces. Code blocks always keep their lines.
 */
export interface TextOptions {
  preserveFormatting: boolean;
}

export function renderText(blocks: readonly Block[], options: TextOptions): string {
  return renderBlocks(blocks, options).join('\n\n');
}

/** Each block's text, empty ones left out. */
function renderBlocks(blocks: readonly Block[], options: TextOptions): string[] {
  const out: string[] = [];
  for (const block of blocks) {
    const text = renderBlock(block, options);
    if (text !== '') out.push(text);
  }
  return out;
}

function renderBlock(block: Block, options: TextOptions): string {
  switch (block.type) {
    case 'heading':
    case 'paragraph':
      return inlineText(block.children, options);
    case 'list':
      return block.items
        .map((item) => renderBlocks(item, options).join('\n'))
        .filter((line) => line !== '')
        .join('\n');
    case 'table':
      return block.rows
        .map((row) => row.cells.map((cell) => inlineText(cell, { preserveFormatting: false })).join(' | '))
        .join('\n');
    case 'code':
      return block.text;
    case 'quote':
      return renderBlocks(block.blocks, options).join('\n\n');
    case 'image':
      return '';
    case 'page':
      return `--- page ${block.number} ---`;
  }
}

function inlineText(run: readonly Inline[], options: TextOptions): string {
  const text = flatten(run, options.preserveFormatting);
  return options.preserveFormatting
    ? text.replace(/[^\S\n]+/g, ' ').replace(/ ?\n ?/g, '\n').trim()
    : text.replace(/\s+/g, ' ').trim();
}

function flatten(run: readonly Inline[], keepBreaks: boolean): string {
  let text = '';
  for (const inline of run) {
    switch (inline.type) {
      case 'text':
      case 'code':
        text += inline.text;
        break;
      case 'link':
      case 'emphasis':
        text += flatten(inline.children, keepBreaks);
        break;
      case 'break':
        text += keepBreaks ? '\n' : ' ';
        break;
      case 'image':
        break;
    }
  }
  return text;
}
