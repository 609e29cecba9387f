import type { Element } from 'domhandler';
import type { Block, Inline } from '../blocks.js';

/**
 * URLs that leave the extractor: always absolute, and only of schemes a client can follow
 * safely. javascript:, data:, file: and friends are dropped rather than rewritten.
 */
const LINK_SCHEMES = new Set(['http:', 'https:', 'mailto:']);
const IMAGE_SCHEMES = new Set(['http:', 'https:']);

/** A link target resolved against the base, or null for fragments-only, scripts and unknown schemes. */
export function resolveLink(href: string, base: string): string | null {
  const reference = href.trim();
  // A same-page fragment ("#top", "#comments") is navigation, not a reference worth keeping.
  if (reference === '' || reference.startsWith('#')) return null;
  return resolve(reference, base, LINK_SCHEMES);
}

/**
 * The real address of an image. Lazy-loading pages put a placeholder (a data: URI or a
 * 1×1 gif) in src and the picture in data-src, data-original, data-lazy-src or a srcset.
 */
export function resolveImage(img: Element, base: string): string | null {
  const { attribs } = img;
  for (const name of ['data-src', 'data-lazy-src', 'data-original', 'data-url', 'data-hi-res-src', 'src']) {
    const value = attribs[name];
    if (value && !value.trim().startsWith('data:')) {
      const url = resolve(value.trim(), base, IMAGE_SCHEMES);
      if (url) return url;
    }
  }
  for (const name of ['data-srcset', 'srcset', 'data-lazy-srcset']) {
    const first = attribs[name]?.trim().split(/\s+/)[0]?.replace(/,$/, '');
    if (first && !first.startsWith('data:')) {
      const url = resolve(first, base, IMAGE_SCHEMES);
      if (url) return url;
    }
  }
  return null;
}

function resolve(reference: string, base: string, schemes: Set<string>): string | null {
  try {
    const url = new URL(reference, base);
    return schemes.has(url.protocol) ? url.href : null;
  } catch {
    return null;
  }
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

/** A link's text in the links list stops here: it is a label, and (invalid) nested links must not each copy all the text below them. */
const LINK_TEXT_LIMIT = 300;

/** The pictures (in order) and links (one per URL, the first anchor text winning) of the blocks. */
export function collectReferences(blocks: readonly Block[]): { images: ImageRef[]; links: LinkRef[] } {
  const images: ImageRef[] = [];
  const links = new Map<string, LinkRef>();
  const inlines = (run: readonly Inline[]): void => {
    for (const inline of run) {
      if (inline.type === 'image') images.push({ url: inline.src, alt: inline.alt, caption: '' });
      if (inline.type === 'link') {
        const text = linkText(inline.children);
        if (text && !links.has(inline.href)) links.set(inline.href, { url: inline.href, text });
      }
      if (inline.type === 'link' || inline.type === 'emphasis') inlines(inline.children);
    }
  };
  const visit = (list: readonly Block[]): void => {
    for (const block of list) {
      switch (block.type) {
        case 'heading':
        case 'paragraph':
          inlines(block.children);
          break;
        case 'list':
          for (const item of block.items) visit(item);
          break;
        case 'table':
          for (const row of block.rows) for (const cell of row.cells) inlines(cell);
          break;
        case 'quote':
          visit(block.blocks);
          break;
        case 'image':
          images.push({ url: block.src, alt: block.alt, caption: block.caption });
          break;
        case 'code':
          break;
      }
    }
  };
  visit(blocks);
  return { images, links: [...links.values()] };
}

function linkText(run: readonly Inline[]): string {
  let text = '';
  const append = (items: readonly Inline[]): void => {
    for (const inline of items) {
      if (text.length >= LINK_TEXT_LIMIT) return;
      if (inline.type === 'text' || inline.type === 'code') text += inline.text;
      else if (inline.type === 'link' || inline.type === 'emphasis') append(inline.children);
      else if (inline.type === 'break') text += ' ';
    }
  };
  append(run);
  return text.slice(0, LINK_TEXT_LIMIT).replace(/\s+/g, ' ').trim();
}
