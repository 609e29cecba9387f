import { expect } from 'chai';
import { compilePattern } from '../src/crawl/url-pattern.js';
import { CrawlScope } from '../src/crawl/crawl-scope.js';
import type { CrawlRequest } from '../src/crawl/crawl-options.js';
import { pageLinks, robotsHeader } from '../src/crawl/page-links.js';
import { parseSitemap, robotsSitemaps, sitemapUrls } from '../src/crawl/sitemaps.js';
import { renderProgress } from '../src/cli/progress-bar.js';

const request = (overrides: Partial<CrawlRequest> = {}): CrawlRequest => ({
  urls: ['https://www.example.com/start'], max_pages: 100, max_depth: 3, include: [], exclude: [], same_domain: true, sitemaps: true, max_duration: 3600,
  ...overrides,
});

describe('crawl rules', () => {
  describe('URL patterns', () => {
    const matches = (pattern: string, url: string) => compilePattern(pattern).matches(new URL(url));

    it('matches a path pattern against path and query, anything else against the whole URL', () => {
      expect(matches('/blog/*', 'https://a.example/blog/2024/post?page=2')).to.equal(true);
      expect(matches('/blog/*', 'https://a.example/about/blog/x')).to.equal(false);
      expect(matches('*?page=*', 'https://a.example/list?page=3')).to.equal(true);
      expect(matches('https://docs.example.com/*', 'https://docs.example.com/guide')).to.equal(true);
      expect(matches('https://docs.example.com/*', 'https://www.example.com/docs.example.com/')).to.equal(false);
      expect(matches('*.pdf', 'https://a.example/files/report.pdf')).to.equal(true);
      expect(matches('*.pdf', 'https://a.example/files/report.pdf.html')).to.equal(false);
    });

    it('anchors both ends, and treats every other character literally', () => {
      expect(matches('/p/1', 'https://a.example/p/1')).to.equal(true);
      expect(matches('/p/1', 'https://a.example/p/10')).to.equal(false);
      expect(matches('/a.c', 'https://a.example/abc')).to.equal(false);
      expect(matches('/a*b*c', 'https://a.example/abc')).to.equal(true);
      expect(matches('/a*b*b', 'https://a.example/ab')).to.equal(false);
      expect(matches('*', 'https://a.example/anything')).to.equal(true);
    });

    it('decides a pathological pattern against a long URL at once', () => {
      const url = new URL(`https://a.example/${'a'.repeat(2000)}`);
      const pattern = compilePattern(`/${'*a'.repeat(99)}b`);
      const start = performance.now();
      expect(pattern.matches(url)).to.equal(false);
      expect(performance.now() - start).to.be.below(50);
    });
  });

  describe('scope', () => {
    it('keeps the seeds\' domains (without www.) and their subdomains', () => {
      const scope = new CrawlScope(request());
      expect(scope.admit('https://example.com/a', 1)?.url).to.equal('https://example.com/a');
      expect(scope.admit('https://blog.example.com/a', 1)?.host).to.equal('blog.example.com');
      expect(scope.admit('https://notexample.com/a', 1)).to.equal(undefined);
      expect(scope.admit('mailto:a@example.com', 1)).to.equal(undefined);
      expect(new CrawlScope(request({ same_domain: false })).admit('https://other.example/a', 1)?.host).to.equal('other.example');
    });

    it('resolves relative links, drops fragments, and stops past max_depth and at patterns', () => {
      const scope = new CrawlScope(request({ max_depth: 2, exclude: ['*.pdf'], include: ['/docs/*'] }));
      const base = new URL('https://www.example.com/docs/intro');
      expect(scope.admit('guide#part-2', 2, base)).to.include({ url: 'https://www.example.com/docs/guide', depth: 2, host: 'www.example.com' });
      expect(scope.admit('guide', 3, base)).to.equal(undefined);
      expect(scope.admit('/docs/manual.pdf', 1, base)).to.equal(undefined);
      expect(scope.admit('/blog/', 1, base)).to.equal(undefined);
      // Seeds are taken whatever the patterns say.
      expect(scope.seed('https://www.example.com/start')?.depth).to.equal(0);
    });

    it('identifies a URL by a hash of its normalised form', () => {
      const scope = new CrawlScope(request());
      expect(scope.admit('HTTPS://Example.COM:443/a#x', 1)?.urlHash).to.equal(scope.admit('https://example.com/a', 1)?.urlHash);
    });
  });

  describe('links of a page', () => {
    it('finds navigation and content links, honours <base> and rel=nofollow, and skips other schemes', () => {
      const html = `<html><head><base href="https://example.com/docs/"></head><body>
        <nav><a href="/">Home</a> <a href="guide">Guide</a> <a href="guide#top">Guide again</a></nav>
        <article><p>Read <a href="https://other.example/x">this</a> and <a rel="nofollow sponsored" href="/ad">that</a>.</p></article>
        <map><area href="/map-target"></map><a href="javascript:void(0)">js</a><a href="mailto:x@example.com">mail</a></body></html>`;
      const found = pageLinks(html, 'https://example.com/page');
      expect(found.links).to.deep.equal(['https://example.com/', 'https://example.com/docs/guide', 'https://other.example/x', 'https://example.com/map-target']);
      expect(found).to.include({ noindex: false, nofollow: false });
    });

    it('reads the links of a page nested 400,000 deep in linear time: it runs on the worker\'s event loop', () => {
      // htmlparser2's Parser keeps its open elements with unshift: this page took 66 s, blocking the worker.
      const html = `${'<div>'.repeat(400_000)}<a href="/deep">deep</a>${'</div>'.repeat(400_000)}`;
      const started = performance.now();
      expect(pageLinks(html, 'https://example.com/').links).to.deep.equal(['https://example.com/deep']);
      expect(performance.now() - started).to.be.below(3000);
    });

    it('reads the robots meta tag and the X-Robots-Tag header', () => {
      const page = pageLinks('<meta name="ROBOTS" content="noindex, nofollow"><a href="/a">a</a>', 'https://example.com/');
      expect(page).to.deep.equal({ links: [], noindex: true, nofollow: true });
      expect(robotsHeader('none')).to.deep.equal({ noindex: true, nofollow: true });
      expect(robotsHeader('noarchive')).to.deep.equal({ noindex: false, nofollow: false });
    });
  });

  describe('sitemaps', () => {
    it('reads the Sitemap lines of robots.txt and the loc of urlsets and sitemap indexes', () => {
      expect(robotsSitemaps('User-agent: *\nDisallow: /x\n\nsitemap: https://a.example/s1.xml\r\nSitemap:https://a.example/s2.xml')).to.deep.equal([
        'https://a.example/s1.xml', 'https://a.example/s2.xml',
      ]);
      const urlset = parseSitemap(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
        <url><loc> https://a.example/1?x=1&amp;y=2 </loc><image:image><image:loc>https://a.example/i.png</image:loc></image:image></url>
        <url><loc>https://a.example/2</loc></url></urlset>`);
      expect(urlset).to.deep.equal({ urls: ['https://a.example/1?x=1&y=2', 'https://a.example/2'], sitemaps: [] });
      expect(parseSitemap('<sitemapindex><sitemap><loc>https://a.example/s.xml</loc></sitemap></sitemapindex>').sitemaps).to.deep.equal(['https://a.example/s.xml']);
    });

    it('reads CDATA, stray and missing end tags as Parser did, and a sitemap nested 400,000 deep in linear time', () => {
      expect(parseSitemap('<urlset><url><loc><![CDATA[https://a.example/c?x=1&y=2]]></loc></url><url><loc>https://a.example/open</url><url></x><loc/><loc>https://a.example/3</loc></url></urlset>'))
        .to.deep.equal({ urls: ['https://a.example/c?x=1&y=2', 'https://a.example/open', 'https://a.example/3'], sitemaps: [] });
      // htmlparser2's Parser keeps its open elements with unshift: this file blocked the worker's event loop for minutes.
      const xml = `<urlset>${'<x>'.repeat(400_000)}<url><loc>https://a.example/deep</loc></url>${'</x>'.repeat(400_000)}</urlset>`;
      const started = performance.now();
      expect(parseSitemap(xml).urls).to.deep.equal(['https://a.example/deep']);
      expect(performance.now() - started).to.be.below(3000);
    });

    it('follows robots.txt to sitemaps and index files, within the allowed hosts and the limit', async () => {
      const files: Record<string, string> = {
        'https://a.example/robots.txt': 'Sitemap: https://a.example/index.xml\nSitemap: https://elsewhere.example/s.xml',
        'https://a.example/index.xml': '<sitemapindex><sitemap><loc>https://a.example/one.xml</loc></sitemap><sitemap><loc>https://a.example/index.xml</loc></sitemap></sitemapindex>',
        'https://a.example/one.xml': '<urlset><url><loc>https://a.example/p1</loc></url><url><loc>https://a.example/p2</loc></url><url><loc>https://a.example/p3</loc></url></urlset>',
      };
      const fetched: string[] = [];
      const urls = await sitemapUrls('https://a.example', async (url) => {
        fetched.push(url);
        return files[url];
      }, 2, (url) => url.hostname === 'a.example');
      expect(urls).to.deep.equal(['https://a.example/p1', 'https://a.example/p2']);
      expect(fetched).to.deep.equal(['https://a.example/robots.txt', 'https://a.example/index.xml', 'https://a.example/one.xml']);

      const fallback: string[] = [];
      await sitemapUrls('https://b.example', async (url) => {
        fallback.push(url);
        return undefined;
      }, 10, () => true);
      expect(fallback).to.deep.equal(['https://b.example/robots.txt', 'https://b.example/sitemap.xml']);
    });
  });

  it('draws the progress line', () => {
    expect(renderProgress({ done: 5, total: 10, errors: 1, state: 'running' }, { name: 'pages', rate: 'pages' }, 2)).to.equal(
      `[${'#'.repeat(15)}${'.'.repeat(15)}] 5/10 pages  2.5 pages/s  1 errors  running`,
    );
  });
});
