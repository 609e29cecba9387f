/**
 * Markdown to the plain text the index stores: the words a reader sees, without the markup.
 * Headings, emphasis, quotes and list markers go; links keep their text; code keeps its code;
 * images (and their alt text, which is not part of the prose) are dropped. Pure and line-based:
 * cheap enough to run in the request or job that receives the document, no pool needed.
 */

const FENCE = /^\s{0,3}(`{3,}|~{3,})/;

export function markdownToText(markdown: string): string {
  const out: string[] = [];
  let fence: string | null = null;
  for (const line of markdown.replace(/\r\n?/g, '\n').split('\n')) {
    const opener = FENCE.exec(line);
    if (fence !== null) {
      // Inside a fenced block every line is code, kept as written, until the matching fence.
      if (opener && opener[1]![0] === fence[0] && opener[1]!.length >= fence.length && line.trim() === opener[1]) fence = null;
      else out.push(line);
      continue;
    }
    if (opener) {
      fence = opener[1]!;
      continue;
    }
    out.push(blockLine(line));
  }
  return out.join('\n').replace(/\n{3,}/g, '\n\n').trim();
}

/** One line outside code fences: block markers first, then the inline markup. */
function blockLine(line: string): string {
  // Thematic breaks and setext underlines carry no words.
  if (/^\s{0,3}([-*_=])(\s*\1){2,}\s*$/.test(line)) return '';
  // Table separator rows (| --- | :-: |) likewise.
  if (/^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/.test(line)) return '';
  const stripped = line
    .replace(/^\s{0,3}(>\s?)+/, '')
    .replace(/^\s{0,3}#{1,6}\s+/, '')
    .replace(/\s+#+\s*$/, '')
    .replace(/^\s*([-*+]|\d{1,9}[.)])\s+(\[[ xX]\]\s+)?/, '');
  return inline(stripped).replace(/^\s*\|\s*|\s*\|\s*$/g, '').replace(/\s*\|\s*/g, '  ');
}

function inline(text: string): string {
  // Code spans are set aside first, so that markup inside them is kept as code.
  const spans: string[] = [];
  const withoutCode = text.replace(/(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)/g, (_, __, code: string) => {
    spans.push(code.trim());
    return `\u0000${spans.length - 1}\u0000`;
  });
  return withoutCode
    .replace(/!\[[^\]]*\]\([^)]*\)/g, '')
    .replace(/!\[[^\]]*\]\[[^\]]*\]/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]*)\]\[[^\]]*\]/g, '$1')
    .replace(/^\s*\[[^\]]+\]:\s+\S+.*$/, '')
    .replace(/<(https?:\/\/[^>\s]+)>/g, '$1')
    .replace(/<\/?[A-Za-z][^>]*>/g, '')
    .replace(/(\*\*?)(?=\S)([\s\S]*?\S)\1/g, '$2')
    // Underscores inside a word (snake_case) are not emphasis.
    .replace(/(^|\W)(__?)(?=\S)([\s\S]*?\S)\2(?!\w)/g, '$1$3')
    .replace(/~~(?=\S)([\s\S]*?\S)~~/g, '$1')
    .replace(/\\([\\`*_{}[\]()#+\-.!|~>])/g, '$1')
    .replace(/\u0000(\d+)\u0000/g, (_, i: string) => spans[Number(i)]!);
}
