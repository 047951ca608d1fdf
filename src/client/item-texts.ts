/**
 * The JSON text of each element of a page's `data` array, cut from the response body as received: a flow that
 * stages items as JSON keeps the API's own bytes instead of serializing the parsed item again, which costs about
 * twice the scan below. The body has already been parsed by JSON.parse, so it is valid JSON and the scan only has
 * to track strings and nesting.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}

/** Index of the quote closing the string that opens at `open`. */
function closingQuote(text: string, open: number): number {
  let from = open;
  for (;;) {
    const quote = text.indexOf('"', from + 1);
    if (quote < 0) throw new SyntaxError('unterminated string');
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return quote;
    from = quote;
  }
}

function keyName(text: string, open: number, close: number): string {
  const raw = text.slice(open + 1, close);
  return raw.includes('\\') ? (JSON.parse(text.slice(open, close + 1)) as string) : raw;
}

function trimmedEnd(text: string, end: number): number {
  let at = end;
  while (isSpace(text.charCodeAt(at - 1))) at -= 1;
  return at;
}

/**
 * The texts of the elements of the top-level object's `data` array (the last one, as JSON.parse keeps the last
 * of duplicate keys), or null when the body is not such an object. `text` must be valid JSON.
 */
export function dataElementTexts(text: string): string[] | null {
  let texts: string[] | null = null;
  let depth = 0;
  let key: string | null = null;
  let inData = false;
  let start = -1;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      const close = closingQuote(text, i);
      if (depth === 1) key = keyName(text, i, close);
      else if (inData && depth === 2 && start < 0) start = i;
      i = close;
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      if (inData && depth === 2 && start < 0) start = i;
      if (depth === 1 && code === OPEN_BRACKET && key === 'data') {
        inData = true;
        texts = [];
      }
      depth += 1;
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      depth -= 1;
      if (inData && depth === 1) {
        if (start >= 0) texts?.push(text.slice(start, trimmedEnd(text, i)));
        start = -1;
        inData = false;
      }
    } else if (code === COMMA) {
      if (inData && depth === 2 && start >= 0) {
        texts?.push(text.slice(start, trimmedEnd(text, i)));
        start = -1;
      }
      if (depth === 1) key = null;
    } else if (inData && depth === 2 && start < 0 && !isSpace(code)) {
      start = i;
    }
  }
  return texts;
}
