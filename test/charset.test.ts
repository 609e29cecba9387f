import { expect } from 'chai';
import { detectCharset } from '../src/text/charset.js';
import { fetchPage, type FetchOptions } from '../src/fetch/fetch-page.js';
import { decodeBody } from '../src/page/decode-body.js';
import { raw, startPageServer, type PageServer } from './helpers/page-server.js';

// Real bytes of each encoding, written out because TextEncoder only produces UTF-8. Each text is
// long enough for sniffing to tell its encoding apart from the others.
const SAMPLES = {
  shift_jis: {
    text: 'こんにちは、世界。今日は良い天気ですね。東京の桜が満開です。',
    hex: '82b182f182c982bf82cd814190a28a4581428da193fa82cd97c782a293568b4382c582b782cb8142938c8b9e82cc8df782aa969e8a4a82c582b78142',
  },
  'euc-jp': {
    text: 'こんにちは、世界。今日は良い天気ですね。東京の桜が満開です。',
    hex: 'a4b3a4f3a4cba4c1a4cfa1a2c0a4b3a6a1a3baa3c6fca4cfcec9a4a4c5b7b5a4a4c7a4b9a4cda1a3c5ecb5fea4cebaf9a4accbfeb3aba4c7a4b9a1a3',
  },
  gb18030: {
    text: '你好，世界。今天天气很好。我们去公园散步吧。',
    hex: 'c4e3bac3a3accac0bde7a1a3bdf1ccecccecc6f8badcbac3a1a3ced2c3c7c8a5b9abd4b0c9a2b2bdb0c9a1a3',
  },
  big5: {
    text: '你好，世界。今天天氣很好。我們去公園散步吧。',
    hex: 'a741a66ea141a540acc9a143a4b5a4d1a4d1aef0abdca66ea143a7daadcca568a4bdb6e9b4b2a842a761a143',
  },
  'euc-kr': {
    text: '안녕하세요, 세계. 오늘은 날씨가 좋네요. 공원에 산책하러 갑시다.',
    hex: 'bec8b3e7c7cfbcbcbfe42c20bcbcb0e82e20bfc0b4c3c0ba20b3afbebeb0a120c1c1b3d7bfe42e20b0f8bff8bfa120bbeac3a5c7cfb7af20b0a9bdc3b4d92e',
  },
  'koi8-r': {
    text: 'Москва - столица России, крупнейший по численности населения город страны.',
    hex: 'edcfd3cbd7c1202d20d3d4cfccc9c3c120f2cfd3d3c9c92c20cbd2d5d0cec5cadbc9ca20d0cf20dec9d3ccc5cececfd3d4c920cec1d3c5ccc5cec9d120c7cfd2cfc420d3d4d2c1ced92e',
  },
  // Curly quotes, € and the dash lie in 0x80–0x9F, where windows-1252 and latin1 differ.
  'windows-1252': {
    text: 'Le “château” coûte 10 € — naïve façade, crème brûlée à São Paulo.',
    hex: '4c6520936368e2746561759420636ffb746520313020802097206e61ef7665206661e76164652c206372e86d65206272fb6ce96520e02053e36f205061756c6f2e',
  },
} as const;

type Encoding = keyof typeof SAMPLES;
const ENCODINGS = Object.keys(SAMPLES) as Encoding[];

function bytesOf(encoding: Encoding): Buffer {
  return Buffer.from(SAMPLES[encoding].hex, 'hex');
}

/** An HTML page around the encoded text; markup is ASCII, the same bytes in every encoding here. */
function page(text: Buffer, head = ''): Buffer {
  return Buffer.concat([
    Buffer.from(`<!DOCTYPE html><html><head>${head}<title>Test</title></head><body><p>`),
    text,
    Buffer.from('</p></body></html>'),
  ]);
}

describe('character sets', () => {
  describe('declared in the Content-Type header', () => {
    const labels: Record<Encoding, string> = {
      shift_jis: 'Shift_JIS',
      'euc-jp': 'EUC-JP',
      gb18030: 'GB18030',
      big5: 'Big5',
      'euc-kr': 'EUC-KR',
      'koi8-r': 'KOI8-R',
      'windows-1252': 'windows-1252',
    };
    for (const encoding of ENCODINGS) {
      it(encoding, () => {
        const body = page(bytesOf(encoding));
        expect(detectCharset(body, labels[encoding].toLowerCase())).to.deep.equal({ encoding, source: 'header' });
        expect(decodeBody(body, labels[encoding].toLowerCase())).to.include(SAMPLES[encoding].text);
      });
    }

    it('understands the aliases servers send', () => {
      expect(detectCharset(page(bytesOf('shift_jis')), 'x-sjis').encoding).to.equal('shift_jis');
      expect(decodeBody(page(bytesOf('gb18030')), 'gb2312')).to.include(SAMPLES.gb18030.text);
      expect(decodeBody(page(bytesOf('gb18030')), 'gbk')).to.include(SAMPLES.gb18030.text);
      expect(detectCharset(page(bytesOf('euc-kr')), 'ks_c_5601-1987').encoding).to.equal('euc-kr');
    });

    it('reads iso-8859-1, latin1 and ascii as windows-1252, as browsers do', () => {
      for (const label of ['iso-8859-1', 'latin1', 'us-ascii']) {
        expect(decodeBody(page(bytesOf('windows-1252')), label), label).to.include(SAMPLES['windows-1252'].text);
      }
    });

    it('decodes all of 0x80–0x9F the WHATWG way', () => {
      const c1 = Buffer.from(Array.from({ length: 32 }, (_, i) => 0x80 + i));
      expect(decodeBody(c1, 'windows-1252')).to.equal('€\x81‚ƒ„…†‡ˆ‰Š‹Œ\x8dŽ\x8f\x90‘’“”•–—˜™š›œ\x9džŸ');
    });

    it('ignores a label no decoder knows and looks further', () => {
      const body = page(bytesOf('shift_jis'), '<meta charset="shift_jis">');
      expect(detectCharset(body, 'klingon')).to.deep.equal({ encoding: 'shift_jis', source: 'meta' });
    });
  });

  describe('declared only in the document', () => {
    for (const encoding of ENCODINGS) {
      it(`${encoding} in <meta charset>`, () => {
        const body = page(bytesOf(encoding), `<meta charset="${encoding.toUpperCase()}">`);
        expect(detectCharset(body, undefined)).to.deep.equal({ encoding, source: 'meta' });
        expect(decodeBody(body, undefined)).to.include(SAMPLES[encoding].text);
      });
    }

    it('reads the http-equiv form with any quoting and attribute order', () => {
      const forms = [
        '<meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS">',
        "<META CONTENT='text/html;charset=shift_jis' HTTP-EQUIV='content-type'>",
        '<meta http-equiv=content-type content="text/html; charset=\'shift_jis\'" />',
      ];
      for (const head of forms) expect(detectCharset(page(bytesOf('shift_jis'), head), undefined).encoding, head).to.equal('shift_jis');
    });

    it('needs http-equiv for a charset in content', () => {
      const body = page(Buffer.from('plain'), '<meta name="description" content="charset=koi8-r explained">');
      expect(detectCharset(body, undefined).source).to.equal('utf8');
    });

    it('skips commented-out declarations and unknown labels', () => {
      const head = '<!-- <meta charset="koi8-r"> --><meta charset="x-unknown"><meta charset="gb18030">';
      expect(detectCharset(page(bytesOf('gb18030'), head), undefined)).to.deep.equal({ encoding: 'gb18030', source: 'meta' });
    });

    it('takes a declared UTF-16 as UTF-8, since the declaration itself was readable as ASCII', () => {
      expect(detectCharset(page(Buffer.from('é'), '<meta charset="utf-16">'), undefined)).to.deep.equal({ encoding: 'utf-8', source: 'meta' });
    });

    it('finds a declaration behind a long inline script, but not anywhere in the page', () => {
      const script = `<script>${'var x = 1;\n'.repeat(300)}</script>`;
      expect(script.length).to.be.greaterThan(1024);
      expect(detectCharset(page(bytesOf('koi8-r'), `${script}<meta charset="koi8-r">`), undefined).source).to.equal('meta');
      const far = `<script>${'var x = 1;\n'.repeat(1000)}</script>`;
      expect(detectCharset(page(bytesOf('koi8-r'), `${far}<meta charset="koi8-r">`), undefined).source).not.to.equal('meta');
    });

    it('reads the encoding of an XML declaration', () => {
      const body = Buffer.concat([Buffer.from('<?xml version="1.0" encoding="EUC-JP"?>\n'), page(bytesOf('euc-jp'))]);
      expect(detectCharset(body, undefined)).to.deep.equal({ encoding: 'euc-jp', source: 'xml' });
    });
  });

  describe('undeclared', () => {
    for (const encoding of ENCODINGS) {
      it(`${encoding} is sniffed`, () => {
        const body = page(bytesOf(encoding));
        expect(detectCharset(body, undefined)).to.deep.equal({ encoding, source: 'sniffed' });
        expect(decodeBody(body, undefined)).to.include(SAMPLES[encoding].text);
      });
    }

    it('takes valid UTF-8 as UTF-8 without guessing', () => {
      const body = page(Buffer.from('Grüße aus Köln — 日本語 — Привет'));
      expect(detectCharset(body, undefined)).to.deep.equal({ encoding: 'utf-8', source: 'utf8' });
      expect(decodeBody(body, undefined)).to.include('Grüße aus Köln — 日本語 — Привет');
    });

    it('finds the text among lots of ASCII markup and script', () => {
      const scripts = `<script>${'window.dataLayer.push({event: "x"});\n'.repeat(2000)}</script>`;
      expect(detectCharset(page(bytesOf('koi8-r'), scripts), undefined).encoding).to.equal('koi8-r');
    });

    it('falls back to windows-1252 when the bytes are too few to tell', () => {
      // 日本語 in Shift_JIS: six bytes fit several encodings equally well.
      expect(detectCharset(page(Buffer.from('93fa967b8cea', 'hex')), undefined)).to.deep.equal({ encoding: 'windows-1252', source: 'default' });
    });
  });

  describe('precedence', () => {
    it('a byte-order mark beats the header and the document', () => {
      const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), page(Buffer.from('naïve'), '<meta charset="koi8-r">')]);
      expect(detectCharset(body, 'windows-1252')).to.deep.equal({ encoding: 'utf-8', source: 'bom' });
      expect(decodeBody(body, 'windows-1252')).to.match(/^<!DOCTYPE html>.*naïve/);
    });

    it('a UTF-16 byte-order mark decodes UTF-16', () => {
      const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('<p>日本語</p>', 'utf16le')]);
      expect(decodeBody(le, 'utf-8')).to.equal('<p>日本語</p>');
      const be = Buffer.from(le.subarray(2)).swap16();
      expect(decodeBody(Buffer.concat([Buffer.from([0xfe, 0xff]), be]), undefined)).to.equal('<p>日本語</p>');
    });

    it('the header beats the document', () => {
      const body = page(bytesOf('koi8-r'), '<meta charset="windows-1251">');
      expect(detectCharset(body, 'koi8-r').source).to.equal('header');
      expect(decodeBody(body, 'koi8-r')).to.include(SAMPLES['koi8-r'].text);
    });
  });

  describe('end to end through fetchPage and decodeBody', () => {
    let site: PageServer;
    const options: FetchOptions = { timeoutMs: 5000, maxBytes: 1_000_000, maxRedirects: 0, userAgent: 'sev-test/1.0', allowedCidrs: ['127.0.0.1/32'] };

    before(async () => {
      const routes: Parameters<typeof startPageServer>[0] = {};
      for (const encoding of ENCODINGS) {
        routes[`/meta/${encoding}`] = raw(page(bytesOf(encoding), `<meta charset="${encoding}">`), { 'content-type': 'text/html' });
        routes[`/equiv/${encoding}`] = raw(page(bytesOf(encoding), `<meta http-equiv="Content-Type" content="text/html; charset=${encoding}">`), {
          'content-type': 'text/html',
        });
        routes[`/header/${encoding}`] = raw(page(bytesOf(encoding)), { 'content-type': `text/html; charset=${encoding}` });
        routes[`/sniffed/${encoding}`] = raw(page(bytesOf(encoding)), { 'content-type': 'text/html' });
      }
      routes['/plain-sjis'] = raw(bytesOf('shift_jis'), { 'content-type': 'text/plain; charset=Shift_JIS' });
      site = await startPageServer(routes);
    });

    after(() => site.close());

    async function fetchText(path: string): Promise<string> {
      const fetched = await fetchPage(`${site.url}${path}`, options);
      return decodeBody(fetched.body, fetched.charset);
    }

    for (const encoding of ENCODINGS) {
      it(`${encoding}: declared only in <meta>, in http-equiv, in the header, and undeclared`, async () => {
        for (const way of ['meta', 'equiv', 'header', 'sniffed']) {
          expect(await fetchText(`/${way}/${encoding}`), way).to.include(SAMPLES[encoding].text);
        }
      });
    }

    it('decodes plain text in the header’s charset', async () => {
      expect(await fetchText('/plain-sjis')).to.equal(SAMPLES.shift_jis.text);
    });
  });
});
