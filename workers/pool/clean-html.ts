import { Parser } from 'htmlparser2';

/**
 * A first, deliberately simple cleaner: it streams the page through htmlparser2, drops the
 * elements that are never main content (scripts, navigation, headers, footers, forms ...),
 * and keeps block structure. Main-content scoring replaces it in the extraction work.
 */
export type OutputFormat = 'text' | 'markdown' | 'html' | 'json';

export interface CleanHtmlInput {
  html: string;
  url: string;
  format: OutputFormat;
}

export interface Block {
  type: 'heading' | 'paragraph' | 'list_item' | 'quote' | 'code';
  text: string;
  level?: number;
}

export interface ImageRef {
  url: string;
  alt: string;
  caption: string;
}

export interface LinkRef {
  url: string;
  text: string;
}

export interface CleanHtmlOutput {
  content: string;
  blocks: Block[];
  images: ImageRef[];
  links: LinkRef[];
  title: string | null;
  author: string | null;
  publishedDate: string | null;
  language: string | null;
  wordCount: number;
}

const SKIPPED = new Set([
  'script', 'style', 'noscript', 'template', 'svg', 'canvas', 'iframe', 'object', 'embed',
  'nav', 'header', 'footer', 'aside', 'form', 'button', 'select', 'textarea', 'head',
]);
const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr']);
const BLOCKS: Record<string, Block['type']> = {
  p: 'paragraph', div: 'paragraph', section: 'paragraph', article: 'paragraph', main: 'paragraph', td: 'paragraph',
  h1: 'heading', h2: 'heading', h3: 'heading', h4: 'heading', h5: 'heading', h6: 'heading',
  li: 'list_item', blockquote: 'quote', pre: 'code',
};

export function cleanHtml(input: CleanHtmlInput): CleanHtmlOutput {
  const blocks: Block[] = [];
  const meta: Record<string, string> = {};
  let title = '';
  let inTitle = false;
  let skipDepth = 0;
  let language: string | null = null;
  const open: string[] = [];
  let current: Block | null = null;
  const images: ImageRef[] = [];
  const links: LinkRef[] = [];
  let link: LinkRef | null = null;

  const flush = (): void => {
    if (current) {
      const text = current.type === 'code' ? current.text.replace(/^\n+|\s+$/g, '') : current.text.replace(/\s+/g, ' ').trim();
      if (text) blocks.push({ ...current, text });
    }
    current = null;
  };

  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if (!VOID.has(name)) open.push(name);
        if (name === 'html' && attrs.lang) language = attrs.lang.toLowerCase();
        if (name === 'meta') {
          const key = (attrs.property ?? attrs.name ?? attrs.itemprop ?? '').toLowerCase();
          if (key && attrs.content) meta[key] ??= attrs.content.trim();
        }
        if (name === 'title' && !title && !open.includes('svg')) inTitle = true;
        // Void elements never close, so they must not open a skipped region.
        if (SKIPPED.has(name) && !VOID.has(name)) skipDepth++;
        if (skipDepth > 0) return;
        const type = BLOCKS[name];
        // <li><p>…</p></li> and <blockquote><p>…</p></blockquote> keep the outer block's type.
        const wrapped = type === 'paragraph' && current !== null && current.type !== 'paragraph' && !current.text.trim();
        if (type && !wrapped) {
          flush();
          current = { type, text: '', ...(type === 'heading' ? { level: Number(name[1]) } : {}) };
        } else if (name === 'br' && current) {
          current.text += '\n';
        } else if (name === 'img' && attrs.src) {
          const url = absolute(attrs.src, input.url);
          if (url) images.push({ url, alt: attrs.alt?.trim() ?? '', caption: '' });
        } else if (name === 'a' && attrs.href) {
          const url = absolute(attrs.href, input.url);
          link = url ? { url, text: '' } : null;
        }
      },
      ontext(text) {
        if (inTitle) {
          title += text;
          return;
        }
        if (skipDepth > 0) return;
        current ??= { type: 'paragraph', text: '' };
        current.text += text;
        if (link) link.text += text;
      },
      onclosetag(name) {
        if (VOID.has(name)) return;
        // Pop to the matching element: unclosed tags in real pages must not leave us skipping forever.
        const at = open.lastIndexOf(name);
        if (at === -1) return;
        for (const closed of open.splice(at).reverse()) {
          if (closed === 'title') inTitle = false;
          if (closed === 'a' && link) {
            const text = link.text.replace(/\s+/g, ' ').trim();
            if (text) links.push({ url: link.url, text });
            link = null;
          }
          if (SKIPPED.has(closed)) skipDepth = Math.max(0, skipDepth - 1);
          else if (BLOCKS[closed] && skipDepth === 0) flush();
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.end(input.html);
  flush();

  const text = blocks.map((b) => b.text).join(' ');
  return {
    content: render(blocks, input.format),
    blocks,
    images,
    links,
    title: (meta['og:title'] ?? title.replace(/\s+/g, ' ').trim()) || null,
    author: meta.author ?? meta['article:author'] ?? null,
    publishedDate: normaliseDate(meta['article:published_time'] ?? meta.date ?? meta.datepublished),
    language,
    wordCount: text.split(/\s+/).filter(Boolean).length,
  };
}

/** Resolves a page-relative reference; only http(s) targets are kept (no javascript: or data:). */
function absolute(reference: string, base: string): string | null {
  try {
    const url = new URL(reference.trim(), base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

function normaliseDate(value: string | undefined): string | null {
  if (!value) return null;
  const time = Date.parse(value);
  return Number.isNaN(time) ? null : new Date(time).toISOString();
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function render(blocks: readonly Block[], format: OutputFormat): string {
  switch (format) {
    case 'json':
      return JSON.stringify(blocks);
    case 'markdown':
      return blocks
        .map((b) => {
          if (b.type === 'heading') return `${'#'.repeat(b.level ?? 1)} ${b.text}`;
          if (b.type === 'list_item') return `- ${b.text}`;
          if (b.type === 'quote') return `> ${b.text}`;
          if (b.type === 'code') return '```\n' + b.text + '\n```';
          return b.text;
        })
        .join('\n\n');
    case 'html':
      return blocks
        .map((b) => {
          const text = escapeHtml(b.text);
          if (b.type === 'heading') return `<h${b.level}>${text}</h${b.level}>`;
          if (b.type === 'list_item') return `<li>${text}</li>`;
          if (b.type === 'quote') return `<blockquote>${text}</blockquote>`;
          if (b.type === 'code') return `<pre><code>${text}</code></pre>`;
          return `<p>${text}</p>`;
        })
        .join('\n');
    case 'text':
      return blocks.map((b) => b.text).join('\n\n');
  }
}
