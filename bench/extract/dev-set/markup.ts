/**
 * The small text markup the development set's pages are written in (pages/*.page), turned into
 * HTML the way different sites write it. Blocks are separated by blank lines:
 *
 *   ## Heading / ### Heading        a heading (h2, h3)
 *   - item / 1. item                a list (each line an item)
 *   | a | b |                       a table (first row the header)
 *   > text                          a quotation
 *   ```lang … ```                   a code block (blank lines allowed inside)
 *   !note text / !warning text      an admonition box (documentation pages)
 *   <…                              raw HTML, kept as written
 *   anything else                   a paragraph
 *
 * Inline: [text](url) links, `code`, **strong**, *emphasis*. A layout chooses how paragraphs
 * are marked up: <p> elements, text separated by <br><br> (old forum software), or <div>s.
 */
export type ParagraphStyle = 'p' | 'br' | 'div';

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

export function inline(text: string): string {
  const parts = text.split(/(`[^`]+`)/);
  return parts
    .map((part) => {
      if (part.startsWith('`') && part.endsWith('`') && part.length > 1) return `<code>${escapeHtml(part.slice(1, -1))}</code>`;
      return escapeHtml(part)
        .replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (_m, label: string, href: string) => `<a href="${href}">${label}</a>`)
        .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>')
        .replace(/\*([^*\s][^*]*)\*/g, '<em>$1</em>');
    })
    .join('');
}

/** Splits the markup into blocks: fenced code first (it may hold blank lines), then blank-line separated chunks. */
function splitBlocks(source: string): string[] {
  const blocks: string[] = [];
  const lines = source.replace(/\r\n/g, '\n').split('\n');
  let current: string[] = [];
  const flush = (): void => {
    if (current.some((line) => line.trim())) blocks.push(current.join('\n').trim());
    current = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.startsWith('```')) {
      flush();
      const fence = [line];
      for (i++; i < lines.length && !lines[i]!.startsWith('```'); i++) fence.push(lines[i]!);
      fence.push('```');
      blocks.push(fence.join('\n'));
    } else if (!line.trim()) {
      flush();
    } else {
      current.push(line);
    }
  }
  flush();
  return blocks;
}

export function renderMarkup(source: string, style: ParagraphStyle = 'p'): string {
  const out: string[] = [];
  let pendingBr: string[] = [];
  const flushBr = (): void => {
    if (pendingBr.length > 0) out.push(pendingBr.join('\n<br><br>\n'));
    pendingBr = [];
  };
  for (const block of splitBlocks(source)) {
    const lines = block.split('\n');
    let html: string | null = null;
    if (block.startsWith('```')) {
      const language = lines[0]!.slice(3).trim();
      const code = escapeHtml(lines.slice(1, -1).join('\n'));
      html = language ? `<pre><code class="language-${language}">${code}</code></pre>` : `<pre>${code}</pre>`;
    } else if (block.startsWith('<')) {
      html = block;
    } else if (/^#{2,4} /.test(block)) {
      const level = block.indexOf(' ');
      html = `<h${level}>${inline(block.slice(level + 1))}</h${level}>`;
    } else if (lines.every((line) => line.startsWith('- '))) {
      html = `<ul>\n${lines.map((line) => `<li>${inline(line.slice(2))}</li>`).join('\n')}\n</ul>`;
    } else if (lines.every((line) => /^\d+\. /.test(line))) {
      html = `<ol>\n${lines.map((line) => `<li>${inline(line.replace(/^\d+\. /, ''))}</li>`).join('\n')}\n</ol>`;
    } else if (lines.every((line) => line.startsWith('|'))) {
      const rows = lines.map((line) => line.replace(/^\|/, '').replace(/\|\s*$/, '').split('|').map((cell) => cell.trim()));
      const [head, ...body] = rows;
      html = `<table>\n<thead><tr>${head!.map((cell) => `<th>${inline(cell)}</th>`).join('')}</tr></thead>\n<tbody>\n${body
        .map((row) => `<tr>${row.map((cell) => `<td>${inline(cell)}</td>`).join('')}</tr>`)
        .join('\n')}\n</tbody>\n</table>`;
    } else if (lines.every((line) => line.startsWith('>'))) {
      html = `<blockquote><p>${inline(lines.map((line) => line.replace(/^>\s?/, '')).join(' '))}</p></blockquote>`;
    } else if (/^!(note|warning|tip) /.test(block)) {
      const kind = block.slice(1, block.indexOf(' '));
      const title = kind[0]!.toUpperCase() + kind.slice(1);
      html = `<div class="admonition ${kind}"><p class="admonition-title">${title}</p><p>${inline(block.slice(kind.length + 2).replace(/\n/g, ' '))}</p></div>`;
    }
    if (html !== null) {
      flushBr();
      out.push(html);
      continue;
    }
    const text = inline(lines.join(' '));
    if (style === 'br') pendingBr.push(text);
    else if (style === 'div') out.push(`<div>${text}</div>`);
    else out.push(`<p>${text}</p>`);
  }
  flushBr();
  return out.join('\n');
}
