import { Element, Text, type Document } from 'domhandler';

/**
 * The article body a page declares in its structured data: schema.org JSON-LD (`articleBody`
 * of an Article, NewsArticle, BlogPosting …, possibly inside @graph or arrays). It is only a
 * cross-check for the extraction (many pages have none, some truncate it to a teaser), never
 * the extraction itself.
 */
const MAX_JSON_CHARS = 2_000_000;
const MAX_NODES = 10_000;

export function structuredArticleBody(doc: Document): string | null {
  let best: string | null = null;
  for (const script of jsonLdScripts(doc)) {
    let data: unknown;
    try {
      data = JSON.parse(script);
    } catch {
      continue;
    }
    const body = findArticleBody(data);
    if (body !== null && (best === null || body.length > best.length)) best = body;
  }
  return best;
}

/**
 * How much of the declared body the extraction covers, and how much of the extraction the
 * declared body covers: shares of their word trigrams (sets), each in 0..1.
 */
export function agreement(extracted: string, declared: string): { coverage: number; support: number } {
  const ours = trigrams(extracted);
  const theirs = trigrams(declared);
  if (ours.size === 0 || theirs.size === 0) return { coverage: 0, support: 0 };
  let shared = 0;
  for (const trigram of theirs) if (ours.has(trigram)) shared++;
  return { coverage: shared / theirs.size, support: shared / ours.size };
}

function trigrams(text: string): Set<string> {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const set = new Set<string>();
  for (let i = 0; i + 3 <= words.length; i++) set.add(`${words[i]} ${words[i + 1]} ${words[i + 2]}`);
  return set;
}

function jsonLdScripts(doc: Document): string[] {
  const found: string[] = [];
  const pending: Element[] = doc.children.filter((child): child is Element => child instanceof Element);
  while (pending.length > 0) {
    const element = pending.pop()!;
    if (element.name === 'script') {
      if (element.attribs.type?.trim().toLowerCase() === 'application/ld+json') {
        const text = element.children.map((child) => (child instanceof Text ? child.data : '')).join('');
        if (text.length <= MAX_JSON_CHARS) found.push(text);
      }
      continue;
    }
    for (const child of element.children) if (child instanceof Element) pending.push(child);
  }
  return found;
}

/** The longest `articleBody` string anywhere in the JSON value (bounded walk, no recursion). */
function findArticleBody(data: unknown): string | null {
  let best: string | null = null;
  const pending: unknown[] = [data];
  for (let visited = 0; pending.length > 0 && visited < MAX_NODES; visited++) {
    const value = pending.pop();
    if (Array.isArray(value)) {
      for (const item of value) pending.push(item);
    } else if (value !== null && typeof value === 'object') {
      for (const [key, inner] of Object.entries(value)) {
        if (key === 'articleBody' && typeof inner === 'string') {
          const body = inner.replace(/\s+/g, ' ').trim();
          if (best === null || body.length > best.length) best = body;
        } else if (typeof inner === 'object') {
          pending.push(inner);
        }
      }
    }
  }
  return best;
}
