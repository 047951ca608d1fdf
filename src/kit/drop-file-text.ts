/**
 * A drop-folder file's bytes as text in the connector's `encoding`. UTF-8 is checked, not patched: decoding a
 * windows-1255 file (a Hebrew POS or Excel export) as UTF-8 turns every Hebrew letter into U+FFFD, and the records
 * would be sent with their names gone. Such a file is refused, naming the first line at fault and the setting.
 */
import { isUtf8 } from 'node:buffer';
import iconv from 'iconv-lite';

export type DropFileText =
  | { readonly ok: true; readonly text: string }
  | { readonly ok: false; readonly line: number; readonly reason: string };

/** `encodingSetting`: the setting as messages name it, e.g. `<file>: connectors.pos.encoding`. */
export function dropFileText(bytes: Buffer, encoding: string, encodingSetting: string): DropFileText {
  const text = iconv.decode(bytes, encoding);
  if (encoding !== 'utf-8' || isUtf8(bytes)) return { ok: true, text };
  const replaced = text.indexOf('\uFFFD');
  const line = text.slice(0, Math.max(0, replaced)).split('\n').length;
  return {
    ok: false,
    line,
    reason:
      `line ${line} is not UTF-8 text, which ${encodingSetting} says the files are: the file is in another ` +
      'encoding (a Hebrew file from a POS or Excel is often windows-1255). Set encoding: windows-1255 if the ' +
      'files are written so, or save the file as UTF-8, then drop it again',
  };
}
