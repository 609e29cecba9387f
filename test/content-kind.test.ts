import { expect } from 'chai';
import { classifyContent, classifyMime } from '../src/fetch/content-kind.js';

const bytes = (text: string): Buffer => Buffer.from(text, 'latin1');

describe('content kind', () => {
  it('extracts HTML and XHTML as html', () => {
    expect(classifyMime('text/html')).to.deep.equal({ kind: 'html' });
    expect(classifyMime('application/xhtml+xml')).to.deep.equal({ kind: 'html' });
  });

  it('keeps plain text and markdown as text', () => {
    for (const mime of ['text/plain', 'text/markdown', 'text/x-markdown']) expect(classifyMime(mime), mime).to.deep.equal({ kind: 'text' });
  });

  it('reads PDFs by their type', () => {
    for (const mime of ['application/pdf', 'application/x-pdf']) expect(classifyMime(mime), mime).to.deep.equal({ kind: 'pdf' });
  });

  it('reads a body with the PDF signature as a PDF, whatever type is declared but a refused one', () => {
    const pdf = bytes('%PDF-1.7\n%\xE2\xE3\xCF\xD3\n1 0 obj');
    for (const mime of ['application/pdf', 'application/octet-stream', 'binary/octet-stream', 'application/force-download', '', 'text/html', 'text/plain', 'application/xml']) {
      expect(classifyContent(mime, pdf), mime).to.deep.equal({ kind: 'pdf' });
    }
    expect(classifyContent('image/png', pdf)).to.deep.equal({ kind: 'refused', reason: 'unsupported content type: image/png' });
  });

  it('leaves a generic binary type to the body, which must be a PDF', () => {
    expect(classifyMime('application/octet-stream')).to.equal(undefined);
    expect(classifyContent('application/octet-stream', Buffer.from('504b0304140000000800', 'hex'))).to.deep.equal({
      kind: 'refused',
      reason: 'unsupported content type: application/octet-stream',
    });
    expect(classifyContent('application/octet-stream', bytes('<html><p>a page</p></html>'))).to.deep.equal({
      kind: 'refused',
      reason: 'unsupported content type: application/octet-stream',
    });
  });

  it('refuses other types by the header alone, naming the type', () => {
    for (const mime of ['image/png', 'application/json', 'text/css', 'application/rss+xml', 'video/mp4', 'application/zip']) {
      expect(classifyMime(mime), mime).to.deep.equal({ kind: 'refused', reason: `unsupported content type: ${mime}` });
      expect(classifyContent(mime, bytes('<html><p>ignored</p></html>')), mime).to.deep.equal({ kind: 'refused', reason: `unsupported content type: ${mime}` });
    }
  });

  it('leaves XML and missing types to the body', () => {
    for (const mime of ['', 'application/xml', 'text/xml', 'unknown/unknown', 'application/unknown', '*/*']) expect(classifyMime(mime), mime).to.equal(undefined);
  });

  describe('generic XML', () => {
    it('is html when its root is <html>', () => {
      const xhtml = [
        '<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd">\n<html xmlns="http://www.w3.org/1999/xhtml">',
        '<?xml version="1.0"?><!-- generated --><html xmlns="http://www.w3.org/1999/xhtml"><head>',
        '\n  <html>',
        '\xEF\xBB\xBF<?xml version="1.0"?>\n<!doctype html>',
      ];
      for (const head of xhtml) expect(classifyContent('application/xml', bytes(head)), head).to.deep.equal({ kind: 'html' });
      expect(classifyContent('text/xml', bytes(xhtml[0]!))).to.deep.equal({ kind: 'html' });
    });

    it('is refused otherwise', () => {
      expect(classifyContent('application/xml', bytes('<?xml version="1.0"?><rss version="2.0"><channel>'))).to.deep.equal({
        kind: 'refused',
        reason: 'unsupported content type: application/xml',
      });
      expect(classifyContent('text/xml', bytes('<feed xmlns="http://www.w3.org/2005/Atom">'))).to.deep.equal({
        kind: 'refused',
        reason: 'unsupported content type: text/xml',
      });
    });
  });

  describe('sniffed when the type is missing', () => {
    it('recognises HTML by its first tag', () => {
      const starts = ['<!DOCTYPE html>\n<html>', '  \n<html lang="en">', '<HEAD><title>x</title>', '<!-- comment -->', '<p>Hello</p>', '<div class="x">', '<script>', '<title>T</title>', '\xEF\xBB\xBF<!doctype html>'];
      for (const start of starts) expect(classifyContent('', bytes(start)), start).to.deep.equal({ kind: 'html' });
    });

    it('takes XHTML as html and other XML as refused', () => {
      expect(classifyContent('', bytes('<?xml version="1.0"?>\n<html xmlns="http://www.w3.org/1999/xhtml">'))).to.deep.equal({ kind: 'html' });
      expect(classifyContent('', bytes('<?xml version="1.0"?><rss>'))).to.deep.equal({
        kind: 'refused',
        reason: 'unsupported content type: application/xml (sniffed)',
      });
    });

    it('takes the PDF signature as a PDF', () => {
      expect(classifyContent('', bytes('%PDF-1.4\n1 0 obj'))).to.deep.equal({ kind: 'pdf' });
    });

    it('names other well-known binary formats', () => {
      const cases: Array<[Buffer, string]> = [
        [Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), 'image/png'],
        [Buffer.from('ffd8ffe000104a464946', 'hex'), 'image/jpeg'],
        [bytes('GIF89a\x01\x00\x01\x00'), 'image/gif'],
        [Buffer.from('504b0304140000000800', 'hex'), 'application/zip'],
        [Buffer.from('1f8b0800000000000003', 'hex'), 'application/gzip'],
      ];
      for (const [body, type] of cases) {
        expect(classifyContent('', body), type).to.deep.equal({ kind: 'refused', reason: `unsupported content type: ${type} (sniffed)` });
      }
    });

    it('refuses other binary data as application/octet-stream', () => {
      expect(classifyContent('', Buffer.from([0x00, 0x01, 0x02, 0x41, 0x42]))).to.deep.equal({
        kind: 'refused',
        reason: 'unsupported content type: application/octet-stream (sniffed)',
      });
    });

    it('takes anything else as text', () => {
      expect(classifyContent('', bytes('Just some words.\r\n\tIndented line.'))).to.deep.equal({ kind: 'text' });
      expect(classifyContent('', bytes('Caf\xE9 cr\xE8me'))).to.deep.equal({ kind: 'text' });
      expect(classifyContent('', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('text', 'utf16le')]))).to.deep.equal({ kind: 'text' });
      expect(classifyContent('', Buffer.alloc(0))).to.deep.equal({ kind: 'text' });
    });

    it('does not mistake text that merely contains a tag for HTML', () => {
      expect(classifyContent('', bytes('Use <p> for paragraphs.'))).to.deep.equal({ kind: 'text' });
    });
  });
});
