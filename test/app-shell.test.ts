import { expect } from 'chai';
import { needsRendering, readAppShell, THIN_CONTENT_CHARS } from '../src/render/app-shell.js';
import { BlockCount, judgeRequest } from '../src/render/request-policy.js';

const PROSE = 'The harbour authority published the new tide tables on Monday, and the ferry timetable follows them from next week. ';

describe('signs of a client-rendered app (options.render auto)', () => {
  it('reads an empty mount element, a bundle and a noscript notice in a create-react-app shell', () => {
    const reading = readAppShell(`<!doctype html><html><head><title>App</title><script defer src="/static/js/main.4f2a.js"></script></head>
      <body><noscript>You need to enable JavaScript to run this app.</noscript><div id="root"></div></body></html>`);
    expect(reading.signs).to.have.members(['empty-root', 'scripts-without-text', 'noscript-notice']);
    expect(reading.externalScripts).to.equal(1);
    expect(reading.visibleTextChars).to.equal(0);
  });

  it('counts a root holding only a loading message as empty, and finds Next, Nuxt and Angular roots', () => {
    expect(readAppShell('<body><div id="app"><div class="spinner">Loading…</div></div></body>').signs).to.include('empty-root');
    expect(readAppShell('<body><div id="__next"></div></body>').signs).to.include('empty-root');
    expect(readAppShell('<body><div id="__nuxt"><!-- --></div></body>').signs).to.include('empty-root');
    expect(readAppShell('<body><app-root></app-root></body>').signs).to.include('empty-root');
  });

  it('sees inline bundles but not JSON data blocks as scripts, and noscript notices in other languages', () => {
    const inline = readAppShell(`<body><div id="main"></div><script>${'var a=1;'.repeat(200)}</script></body>`);
    expect(inline.signs).to.deep.equal(['scripts-without-text']);
    const data = readAppShell('<body><p>Short page.</p><script type="application/ld+json" src="/x.json"></script></body>');
    expect(data.externalScripts).to.equal(0);
    expect(data.signs).to.deep.equal([]);
    expect(readAppShell('<body><noscript>Bitte aktivieren Sie JavaScript.</noscript></body>').signs).to.deep.equal(['noscript-notice']);
  });

  it('finds no sign in a server-rendered article, scripts and a filled root notwithstanding', () => {
    const reading = readAppShell(`<html><head><script src="/analytics.js"></script></head><body>
      <div id="root"><article><h1>Tide tables</h1><p>${PROSE.repeat(4)}</p></article></div>
      <noscript><img src="/pixel.gif"></noscript></body></html>`);
    expect(reading.signs).to.deep.equal([]);
    expect(reading.visibleTextChars).to.be.above(400);
  });

  it('renders only when the static main content is thin and some sign is there', () => {
    const shell = { signs: ['empty-root' as const] };
    expect(needsRendering(0, shell)).to.equal(true);
    expect(needsRendering(THIN_CONTENT_CHARS - 1, shell)).to.equal(true);
    expect(needsRendering(THIN_CONTENT_CHARS, shell)).to.equal(false);
    expect(needsRendering(0, { signs: [] })).to.equal(false);
  });
});

describe('what a rendered page may request', () => {
  const blocked = ['image', 'font', 'media'] as const;

  it('passes http(s) scripts, data requests and documents', () => {
    for (const type of ['document', 'script', 'xhr', 'fetch', 'stylesheet']) {
      expect(judgeRequest('https://example.com/a', type, blocked), type).to.deep.equal({ allowed: true });
    }
    expect(judgeRequest('http://example.com/a', 'xhr', blocked)).to.deep.equal({ allowed: true });
  });

  it('refuses other schemes, and the resource kinds configured', () => {
    for (const url of ['file:///etc/passwd', 'ftp://example.com/x', 'ws://example.com/socket', 'gopher://example.com/', 'not a url']) {
      expect(judgeRequest(url, 'fetch', blocked), url).to.deep.equal({ allowed: false, reason: 'scheme' });
    }
    for (const type of blocked) expect(judgeRequest('https://example.com/x', type, blocked), type).to.deep.equal({ allowed: false, reason: 'resource_type' });
    expect(judgeRequest('https://example.com/x.png', 'image', [])).to.deep.equal({ allowed: true });
  });

  it('counts blocks by reason and tells each to its observer', () => {
    const seen: string[] = [];
    const count = new BlockCount((reason) => seen.push(reason));
    count.add('private_address');
    count.add('resource_type');
    count.add('private_address');
    expect(count.byReason).to.deep.equal({ private_address: 2, scheme: 0, resource_type: 1 });
    expect(count.total).to.equal(3);
    expect(seen).to.deep.equal(['private_address', 'resource_type', 'private_address']);
  });
});
