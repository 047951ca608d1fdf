/**
 * A drop-folder file's bytes as text in the connector's `encoding`. UTF-8 is checked, not patched: decoding a
 * windows-1255 file (a Hebrew POS or Excel export) as UTF-8 turns every Hebrew letter into U+FFFD, and the records
 * would be sent with their names gone. Such a file is refused, naming the first line at fault and the setting.
 */
import { isUtf8 } from 'node:buffer';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import iconv from 'iconv-lite';
import { dropFolderSetting, type DropFolders, type RejectedDropFiles } from './drop-folder.js';

export type DropFileText =
  | { readonly ok: true; readonly text: string }
  | { readonly ok: false; readonly line: number; readonly reason: string };

/** The first line (1-based) of `bytes` that is not UTF-8 text, or null when all of it is. */
export function firstNonUtf8Line(bytes: Buffer): number | null {
  if (isUtf8(bytes)) return null;
  const text = iconv.decode(bytes, 'utf-8');
  const replaced = text.indexOf('\uFFFD');
  return text.slice(0, Math.max(0, replaced)).split('\n').length;
}

/** `encodingSetting`: the setting as messages name it, e.g. `<file>: connectors.pos.encoding`. */
export function dropFileText(bytes: Buffer, encoding: string, encodingSetting: string): DropFileText {
  const text = iconv.decode(bytes, encoding);
  const line = encoding === 'utf-8' ? firstNonUtf8Line(bytes) : null;
  if (line === null) return { ok: true, text };
  return {
    ok: false,
    line,
    reason:
      `line ${line} is not UTF-8 text, which ${encodingSetting} says the files are: the file is in another ` +
      'encoding (a Hebrew file from a POS or Excel is often windows-1255). Set encoding: windows-1255 if the ' +
      'files are written so, or save the file as UTF-8, then drop it again',
  };
}

/**
 * A ready file of the drop folder as text, or undefined once it was rejected whole (moved to failed/ with the
 * reason beside it) for not being in the configured encoding.
 */
export async function readDropFileText(
  folders: DropFolders,
  name: string,
  encoding: string,
  rejected: RejectedDropFiles,
): Promise<string | undefined> {
  const bytes = await readFile(path.join(folders.inDir, name));
  const decoded = dropFileText(bytes, encoding, dropFolderSetting(folders, 'encoding'));
  if (decoded.ok) return decoded.text;
  await rejected.reject(name, decoded.reason, decoded.line);
  return undefined;
}
