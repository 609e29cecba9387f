import path from 'node:path';
import { PROJECT_ROOT } from '../../../src/paths.js';
import { LAYOUTS, slug } from './layouts.js';
import { readSources, type PageSource } from './source.js';

/**
 * The development set: every page source (pages/*.page) wrapped in its layout, with its
 * snippets: the page's own `must` and `not`, and the furniture its layout adds to `not`.
 */
export interface DevPage {
  id: string;
  kind: string;
  layout: string;
  lang: string;
  url: string;
  html: string;
  must: string[];
  not: string[];
}

export const PAGES_DIR = path.join(PROJECT_ROOT, 'bench', 'extract', 'dev-set', 'pages');

export function loadDevSet(dir = PAGES_DIR): DevPage[] {
  return readSources(dir).map(compose);
}

function compose(source: PageSource): DevPage {
  const layout = LAYOUTS[source.layout];
  if (!layout) throw new Error(`${source.file} ${source.id}: unknown layout ${source.layout}`);
  const { html, not } = layout(source);
  return {
    id: source.id,
    kind: source.kind,
    layout: source.layout,
    lang: source.lang,
    url: `https://${slug(source.site)}.example/${source.id}`,
    html,
    must: source.must,
    not: [...new Set([...source.not, ...not])],
  };
}
