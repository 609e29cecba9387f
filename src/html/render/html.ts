import type { Block, Inline, TableRow } from '../blocks.js';
import { isLooseList, normalizeBlocks, type RenderOptions } from './normalize.js';

/**
 * The `html` format: the main content as safe HTML, written from the block model rather than
 * cleaned from the page, so nothing of the page's markup can come through. By construction:
 * - only the tags of ALLOWED_TAGS and the attributes of ALLOWED_ATTRIBUTES are ever written;
 * - every text and attribute value is escaped (& < > " '), attributes are always double-quoted;
 * - href is an http, https or mailto URL and src an http or https URL (policy.ts); a refused
 *   link becomes its text, a refused image disappears;
 * - class appears only on <code> of a code block, as "language-x" with x matching ^[a-z0-9+#-]+$;
 * - every link carries rel="noopener nofollow".
 *
 * Structure follows CommonMark's HTML: items of tight lists hold their paragraph text without
 * <p>, leading header rows go to <thead>, images are <figure> with an optional <figcaption>.
 * <br> appears only with preserveFormatting. A PDF's page marker is <hr data-page="N">, N a
 * positive integer. Blocks are separated by newlines.
 */
export const ALLOWED_TAGS: ReadonlySet<string> = new Set([
  'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'p', 'ul', 'ol', 'li',
  'table', 'thead', 'tbody', 'tr', 'th', 'td', 'pre', 'code', 'blockquote',
  'figure', 'img', 'figcaption', 'a', 'em', 'strong', 'br', 'hr',
]);

/** Attributes allowed per tag; a tag missing here has none. */
export const ALLOWED_ATTRIBUTES: Readonly<Record<string, ReadonlySet<string>>> = {
  a: new Set(['href', 'rel']),
  img: new Set(['src', 'alt']),
  code: new Set(['class']),
  hr: new Set(['data-page']),
};

export const LINK_REL = 'noopener nofollow';

export function renderHtml(blocks: Block[], options: RenderOptions): string {
  return normalizeBlocks(blocks, { keepBreaks: options.preserveFormatting }).map((block) => render(block, false)).join('\n');
}

/** `tight`: a paragraph directly in an item of a tight list, written without <p>. */
function render(block: Block, tight: boolean): string {
  switch (block.type) {
    case 'heading':
      return `<h${block.level}>${inlines(block.children)}</h${block.level}>`;
    case 'paragraph':
      return tight ? inlines(block.children) : `<p>${inlines(block.children)}</p>`;
    case 'list': {
      const tag = block.ordered ? 'ol' : 'ul';
      const itemsTight = !isLooseList(block);
      const items = block.items.map((item) => `<li>${item.map((child) => render(child, itemsTight)).join('\n')}</li>`);
      return `<${tag}>\n${items.join('\n')}\n</${tag}>`;
    }
    case 'table':
      return table(block.rows);
    case 'code': {
      const language = block.language === null ? '' : ` class="language-${escapeHtml(block.language)}"`;
      return `<pre><code${language}>${escapeHtml(block.text)}</code></pre>`;
    }
    case 'quote':
      return `<blockquote>\n${block.blocks.map((child) => render(child, false)).join('\n')}\n</blockquote>`;
    case 'image': {
      const caption = block.caption ? `<figcaption>${escapeHtml(block.caption)}</figcaption>` : '';
      return `<figure>${image(block.src, block.alt)}${caption}</figure>`;
    }
    case 'page':
      return `<hr data-page="${block.number}">`;
  }
}

function table(rows: readonly TableRow[]): string {
  let headRows = 0;
  while (rows[headRows]?.header) headRows++;
  const lines = ['<table>'];
  if (headRows > 0) lines.push('<thead>', ...rows.slice(0, headRows).map(row), '</thead>');
  if (headRows < rows.length) lines.push('<tbody>', ...rows.slice(headRows).map(row), '</tbody>');
  lines.push('</table>');
  return lines.join('\n');
}

/** A header row further down (a section title inside the body) keeps <th> cells. */
function row(tableRow: TableRow): string {
  const tag = tableRow.header ? 'th' : 'td';
  return `<tr>${tableRow.cells.map((cell) => `<${tag}>${inlines(cell)}</${tag}>`).join('')}</tr>`;
}

function inlines(nodes: readonly Inline[]): string {
  let out = '';
  for (const node of nodes) {
    switch (node.type) {
      case 'text':
        out += escapeHtml(node.text);
        break;
      case 'code':
        out += `<code>${escapeHtml(node.text)}</code>`;
        break;
      case 'break':
        out += '<br>';
        break;
      case 'image':
        out += image(node.src, node.alt);
        break;
      case 'link':
        out += `<a href="${escapeHtml(node.href)}" rel="${LINK_REL}">${inlines(node.children)}</a>`;
        break;
      case 'emphasis': {
        const tag = node.strong ? 'strong' : 'em';
        out += `<${tag}>${inlines(node.children)}</${tag}>`;
        break;
      }
    }
  }
  return out;
}

function image(src: string, alt: string): string {
  return `<img src="${escapeHtml(src)}" alt="${escapeHtml(alt)}">`;
}

const SPECIAL = /[&<>"']/g;
const ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

function escapeHtml(text: string): string {
  return text.replace(SPECIAL, (char) => ENTITIES[char]!);
}
