import fs from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { PROJECT_ROOT } from '../../src/paths.js';

/**
 * The public extraction data sets of ../shared/data (see its README), read in place: the
 * directory comes from BENCH_DATA (default: the `shared/data` folder beside the repository).
 */
export const DATA_DIR = path.resolve(process.env.BENCH_DATA ?? path.join(PROJECT_ROOT, '..', 'shared', 'data'));

export interface ArticlePage {
  id: string;
  url: string;
  html: string;
  /** The human-made main text of the page. */
  expected: string;
}

/** scrapinghub's article-extraction-benchmark: 181 news and blog pages with their article bodies. */
export function loadArticleBenchmark(): ArticlePage[] {
  const dir = path.join(DATA_DIR, 'extraction', 'article-benchmark');
  const truth = JSON.parse(fs.readFileSync(path.join(dir, 'ground-truth.json'), 'utf8')) as Record<string, { articleBody: string; url: string }>;
  return Object.entries(truth)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([id, { articleBody, url }]) => ({
      id,
      url,
      html: gunzipSync(fs.readFileSync(path.join(dir, 'html', `${id}.html.gz`))).toString('utf8'),
      expected: articleBody,
    }));
}

export interface ReadabilityPage {
  id: string;
  html: string;
  expected: { title?: string | null; byline?: string | null; lang?: string | null; excerpt?: string | null; siteName?: string | null; publishedTime?: string | null };
}

/** Mozilla Readability's test pages with the metadata Readability itself extracts from them. */
export function loadReadabilityPages(): ReadabilityPage[] {
  const dir = path.join(DATA_DIR, 'extraction', 'readability-pages');
  return fs.readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && fs.existsSync(path.join(dir, entry.name, 'source.html.gz')))
    .map((entry) => entry.name)
    .sort()
    .map((id) => ({
      id,
      html: gunzipSync(fs.readFileSync(path.join(dir, id, 'source.html.gz'))).toString('utf8'),
      expected: JSON.parse(fs.readFileSync(path.join(dir, id, 'expected-metadata.json'), 'utf8')) as ReadabilityPage['expected'],
    }));
}
