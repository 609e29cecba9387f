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
const ESCAPES = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);
const HEX = /^[0-9a-fA-F]{4}$/;

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';

/** End of the string starting at `start` (a '"'), or minus one minus the offset of its first fault. */
function scanString(text: string, start: number): number {
  let k = start + 1;
  while (k < text.length) {
    const c = text[k]!;
    if (c === '"') return k + 1;
    if (c < ' ') return -1 - k;
    if (c === '\\') {
      const e = text[k + 1];
      if (e === 'u') {
        if (!HEX.test(text.slice(k + 2, k + 6))) return -1 - (k + 2);
        k += 6;
        continue;
      }
      if (e === undefined || !ESCAPES.has(e)) return -1 - (k + 1);
      k += 2;
      continue;
    }
    k++;
  }
  return -1 - text.length;
}

/** End of the number starting at `start`, or minus one minus the offset of its first fault. */
function scanNumber(text: string, start: number): number {
  let k = start;
  if (text[k] === '-') k++;
  if (text[k] === '0') k++;
  else if (isDigit(text[k])) while (isDigit(text[k])) k++;
  else return -1 - k;
  if (text[k] === '.') {
    k++;
    if (!isDigit(text[k])) return -1 - k;
    while (isDigit(text[k])) k++;
  }
  if (text[k] === 'e' || text[k] === 'E') {
    k++;
    if (text[k] === '+' || text[k] === '-') k++;
    if (!isDigit(text[k])) return -1 - k;
    while (isDigit(text[k])) k++;
  }
  return k;
}

/** Offset of the first character where `text` stops being valid JSON, or -1 if it is valid. */
export function firstJsonErrorOffset(text: string): number {
  let i = 0;
  // Each open container remembers what it expects next.
  const stack: Array<'object' | 'array'> = [];
  const skip = (): void => {
    while (i < text.length && WHITESPACE.has(text[i]!)) i++;
  };
  /** Runs a token scanner; on a fault, leaves `i` at the faulty character. */
  const token = (scan: (text: string, start: number) => number): boolean => {
    const end = scan(text, i);
    if (end < 0) {
      i = -1 - end;
      return false;
    }
    i = end;
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
    if (c === '"') return token(scanString);
    if (c === '-' || isDigit(c)) return token(scanNumber);
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
      if (text[i] !== '"' || !token(scanString)) return i;
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
