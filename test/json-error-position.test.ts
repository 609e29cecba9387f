import { expect } from 'chai';
import { firstJsonErrorOffset, jsonErrorPosition } from '../src/http/json-error-position.js';

/** V8's JSON.parse message, or undefined when the text parses. */
function v8Message(text: string): string | undefined {
  try {
    JSON.parse(text);
    return undefined;
  } catch (error) {
    return (error as SyntaxError).message;
  }
}

/** The position V8 reports for the error ("... at position N"), or undefined when it gives none. */
function v8Position(text: string): number | undefined {
  const match = /at position (\d+)/.exec(v8Message(text) ?? '');
  return match ? Number(match[1]) : undefined;
}

describe('json-error-position', () => {
  describe('valid JSON', () => {
    const valid = [
      '{}',
      '[]',
      '{"a":{"b":[1,2,{"c":[]}],"d":{}}}',
      '[[[[]]],[{}],[{"x":[null]}]]',
      '{"":""}',
      '"\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\uD83D\\uDE00"',
      '"héllo wörld 😀"',
      '0',
      '-0',
      '12',
      '-12.5',
      '1.5e+10',
      '2E-3',
      '-1e9',
      '0.0e0',
      'true',
      'false',
      'null',
      '"plain"',
      '  \n\t{ "a" : [ 1 , 2 ] , "b" : true }\r\n ',
      '[true,false,null,"s",1,{"k":"v"}]',
    ];
    for (const text of valid) {
      it(`returns -1 for ${JSON.stringify(text)}`, () => {
        expect(v8Message(text), 'fixture must be valid JSON').to.equal(undefined);
        expect(firstJsonErrorOffset(text)).to.equal(-1);
      });
    }
  });

  describe('agrees with V8 on where the error is', () => {
    // `expected` is given only where V8's message carries no position.
    const broken: Array<{ name: string; text: string; expected?: number }> = [
      { name: 'trailing comma in object', text: '{"a":1,}' },
      { name: 'trailing comma in array', text: '[1,]', expected: 3 },
      { name: 'missing colon', text: '{"a" 1}' },
      { name: 'single-quoted key', text: "{'a':1}" },
      { name: 'unquoted key', text: '{a:1}' },
      { name: 'bad escape at top level', text: '"a\\x"' },
      { name: 'bad escape in a value', text: '{"k":"\\q"}' },
      { name: 'leading zero', text: '01' },
      { name: 'leading zero in array', text: '[01]' },
      { name: 'lone minus', text: '-' },
      { name: 'lone minus in array', text: '[-]' },
      { name: 'truncated object', text: '{"a":1' },
      { name: 'truncated array', text: '[1,2' },
      { name: 'truncated string', text: '"abc' },
      { name: 'truncated after colon', text: '{"a":', expected: 5 },
      { name: 'extra data after array', text: '[1] 2' },
      { name: 'extra data after object', text: '{"a":1} x' },
      { name: 'control character in string', text: '"a\u0001b"' },
      { name: 'raw newline in string', text: '["a\nb"]' },
      { name: 'fraction without digits', text: '1.' },
      { name: 'exponent without digits', text: '1e' },
      { name: 'missing comma between elements', text: '[1 2]' },
      { name: 'missing comma between members', text: '{"a":1 "b":2}' },
      { name: 'missing value', text: '{"a":}', expected: 5 },
    ];
    for (const { name, text, expected } of broken) {
      it(`${name}: ${JSON.stringify(text)}`, () => {
        const v8 = v8Position(text);
        const want = v8 ?? expected;
        expect(v8Message(text), 'fixture must be invalid JSON').to.be.a('string');
        expect(want, `V8 said "${v8Message(text)}" and the case gives no expected offset`).to.be.a('number');
        expect(firstJsonErrorOffset(text)).to.equal(want);
        expect(jsonErrorPosition(text).offset).to.equal(want);
      });
    }
  });

  describe('line and column', () => {
    it('reports 1-based line and column on multi-line input', () => {
      const text = '{\n  "a": 1,\n  "b": }';
      //                           ^ line 3, column 8
      expect(jsonErrorPosition(text)).to.deep.equal({ offset: text.indexOf('}'), line: 3, column: 8 });
    });

    it('counts columns from the start of the line after a CRLF', () => {
      const text = '[1,\r\n2,\r\nx]';
      expect(jsonErrorPosition(text)).to.deep.equal({ offset: text.indexOf('x'), line: 3, column: 1 });
    });

    it('reports line 1 for an error on the first line', () => {
      expect(jsonErrorPosition('{"a" 1}\n\n')).to.deep.equal({ offset: 5, line: 1, column: 6 });
    });

    it('points at the end of a truncated multi-line document', () => {
      const text = '{\n  "a": [\n    1,\n';
      expect(jsonErrorPosition(text)).to.deep.equal({ offset: text.length, line: 4, column: 1 });
    });
  });

  describe('empty input', () => {
    it('is an error at offset 0, line 1, column 1', () => {
      expect(firstJsonErrorOffset('')).to.equal(0);
      expect(jsonErrorPosition('')).to.deep.equal({ offset: 0, line: 1, column: 1 });
    });

    it('whitespace only is an error at the end', () => {
      expect(firstJsonErrorOffset(' \n ')).to.equal(3);
      expect(jsonErrorPosition(' \n ')).to.deep.equal({ offset: 3, line: 2, column: 2 });
    });
  });

  describe('deep nesting', () => {
    it('scans 1,000,000 unclosed "[" without overflowing the stack and reports the end', () => {
      const text = '['.repeat(1_000_000);
      expect(firstJsonErrorOffset(text)).to.equal(1_000_000);
      expect(jsonErrorPosition(text)).to.deep.equal({ offset: 1_000_000, line: 1, column: 1_000_001 });
    });

    it('accepts deeply nested balanced arrays and objects', () => {
      expect(firstJsonErrorOffset('['.repeat(200_000) + ']'.repeat(200_000))).to.equal(-1);
      expect(firstJsonErrorOffset('{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000))).to.equal(-1);
    });

    it('finds an error buried deep inside nesting', () => {
      const text = '['.repeat(100_000) + '1,]' + ']'.repeat(100_000);
      expect(firstJsonErrorOffset(text)).to.equal(100_002);
    });
  });
});
