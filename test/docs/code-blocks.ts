/**
 * How a code block of a document is held to a source file: the block must appear in the file as it is, except
 * for whitespace (line breaks and indentation, as the formatter lays the file out), a trailing comma before a
 * closing bracket, and elided parts: a block comment in the block, such as `{ /* ... *\/ }`, stands for any
 * text of the file at that place.
 */

/** Whitespace removed, and a comma before a closing bracket: the layout a formatter may change. */
function compact(code: string): string {
  return code.replace(/\s+/g, '').replace(/,([)\]}])/g, '$1');
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The pattern a block is looked for with, in a file laid out by compact(). */
export function blockPattern(code: string): RegExp {
  const literal = code.split(/\/\*[\s\S]*?\*\//).map((part) => escape(compact(part)));
  return new RegExp(literal.join('[\\s\\S]*?'));
}

/** Whether `code` (a block of a document) appears in `source` (a file's text), as described above. */
export function appearsIn(code: string, source: string): boolean {
  if (compact(code) === '') return false;
  return blockPattern(code).test(compact(source));
}
