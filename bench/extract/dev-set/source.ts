import fs from 'node:fs';
import path from 'node:path';

/**
 * The development set's page sources (pages/*.page). A file holds several pages:
 *
 *   ==== page-id
 *   kind: forum                      what the page is (figures are given per kind)
 *   layout: forum-table              which layout (layouts.ts) wraps it in page furniture
 *   lang: en
 *   title: …                         the page's title
 *   site: …                          the site's name
 *   must: …                          a snippet the main content must contain (several lines)
 *   not: …                           a snippet it must not contain (several lines)
 *   ---- main                        sections: the content, in the markup of markup.ts
 *   ---- post alice | 3 May 2024     (forum posts, answers, comments, teasers: per layout)
 *
 * The labels were written with the page, before any extractor ran on it.
 */
export interface Section {
  name: string;
  /** The words after the section's name, split at " | ". */
  args: string[];
  body: string;
}

export interface PageSource {
  id: string;
  kind: string;
  layout: string;
  lang: string;
  title: string;
  site: string;
  must: string[];
  not: string[];
  sections: Section[];
  /** The file it was read from, for messages. */
  file: string;
}

const FIELDS = new Set(['kind', 'layout', 'lang', 'title', 'site']);

export function readSources(dir: string): PageSource[] {
  const pages: PageSource[] = [];
  for (const file of fs.readdirSync(dir).filter((name) => name.endsWith('.page')).sort()) {
    const text = fs.readFileSync(path.join(dir, file), 'utf8').replace(/\r\n/g, '\n');
    for (const chunk of text.split(/^==== /m).slice(1)) pages.push(parsePage(chunk, file));
  }
  const ids = new Set<string>();
  for (const page of pages) {
    if (ids.has(page.id)) throw new Error(`${page.file}: page id ${page.id} used twice`);
    ids.add(page.id);
  }
  return pages;
}

function parsePage(chunk: string, file: string): PageSource {
  const [head = '', ...rest] = chunk.split(/^---- /m);
  const headLines = head.split('\n');
  const id = headLines[0]!.trim();
  const page: PageSource = { id, kind: '', layout: '', lang: 'en', title: '', site: '', must: [], not: [], sections: [], file };
  for (const line of headLines.slice(1)) {
    if (!line.trim() || line.startsWith('#')) continue;
    const colon = line.indexOf(':');
    if (colon < 0) throw new Error(`${file} ${id}: not a field: ${line}`);
    const name = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    if (name === 'must') page.must.push(value);
    else if (name === 'not') page.not.push(value);
    else if (FIELDS.has(name)) (page as unknown as Record<string, string>)[name] = value;
    else throw new Error(`${file} ${id}: unknown field ${name}`);
  }
  for (const part of rest) {
    const newline = part.indexOf('\n');
    const header = (newline < 0 ? part : part.slice(0, newline)).trim();
    const space = header.indexOf(' ');
    const name = space < 0 ? header : header.slice(0, space);
    const args = space < 0 ? [] : header.slice(space + 1).split(' | ').map((arg) => arg.trim());
    page.sections.push({ name, args, body: newline < 0 ? '' : part.slice(newline + 1).trim() });
  }
  for (const field of ['kind', 'layout', 'title', 'site'] as const) if (!page[field]) throw new Error(`${file} ${id}: no ${field}`);
  if (page.must.length === 0 || page.not.length === 0) throw new Error(`${file} ${id}: a page needs must and not snippets`);
  return page;
}
