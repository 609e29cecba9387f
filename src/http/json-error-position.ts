/**
 * Where a JSON text first goes wrong, as line and column (both 1-based). V8's JSON.parse
 * messages do not always carry a position ("Unexpected token '}', ... is not valid JSON"),
 * so after a failed parse we scan the text ourselves. The scan is iterative (an explicit
 * stack), so a 10 MB body of nested brackets cannot overflow the call stack.
 */
export interface JsonErrorPosition {
  readonly offset: number;
  readonly line: number;
  readonly column: number;
}

const WHITESPACE = new Set([' ', '\t', '\n', '\r']);
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;

/** Offset of the first character where `text` stops being valid JSON, or -1 if it is valid. */
export function firstJsonErrorOffset(text: string): number {
  let i = 0;
  // Each open container remembers what it expects next.
  const stack: Array<'object' | 'array'> = [];
  const skip = (): void => {
    while (i < text.length && WHITESPACE.has(text[i]!)) i++;
  };
  const sticky = (re: RegExp): boolean => {
    re.lastIndex = i;
    if (!re.test(text)) return false;
    i = re.lastIndex;
    return true;
  };
  /** Reads one scalar or opens a container; false when no value starts here. */
  const value = (): boolean => {
    skip();
    const c = text[i];
    if (c === '{' || c === '[') {
      stack.push(c === '{' ? 'object' : 'array');
      i++;
      return true;
    }
    if (c === '"') return sticky(STRING);
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return sticky(NUMBER);
    for (const literal of ['true', 'false', 'null']) {
      if (text.startsWith(literal, i)) {
        i += literal.length;
        return true;
      }
    }
    return false;
  };

  // `justOpened`: the container on top was just opened, so it may close at once ('{}', '[]').
  if (!value()) return i;
  let justOpened = stack.length > 0;
  while (stack.length > 0) {
    skip();
    const top = stack[stack.length - 1];
    const c = text[i];
    if (justOpened && ((top === 'object' && c === '}') || (top === 'array' && c === ']'))) {
      stack.pop();
      i++;
      justOpened = false;
      continue;
    }
    if (!justOpened) {
      if (c === ',') i++;
      else if ((top === 'object' && c === '}') || (top === 'array' && c === ']')) {
        stack.pop();
        i++;
        continue;
      } else return i;
    }
    if (top === 'object') {
      skip();
      if (!sticky(STRING)) return i;
      skip();
      if (text[i] !== ':') return i;
      i++;
    }
    const depth = stack.length;
    if (!value()) return i;
    justOpened = stack.length > depth;
  }
  skip();
  return i < text.length ? i : -1;
}

export function jsonErrorPosition(text: string): JsonErrorPosition {
  const found = firstJsonErrorOffset(text);
  const offset = found < 0 ? text.length : Math.min(found, text.length);
  let line = 1;
  let lineStart = 0;
  for (let k = text.indexOf('\n'); k !== -1 && k < offset; k = text.indexOf('\n', k + 1)) {
    line++;
    lineStart = k + 1;
  }
  return { offset, line, column: offset - lineStart + 1 };
}
