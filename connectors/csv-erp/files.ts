import { existsSync } from 'node:fs';
import { mkdir, open, readFile, readdir, rename } from 'node:fs/promises';
import path from 'node:path';
import iconv from 'iconv-lite';
import { ConnectorError } from '../../src/connector-contract/errors.js';
import { csvRecords } from '../../src/kit/csv.js';
import { firstNonUtf8Line } from '../../src/kit/drop-file-text.js';

export type FileEncoding = 'utf-8' | 'windows-1255';

/** Whose files these are: the connector's name, in errors and in the setting they name. */
export interface FileOwner {
  readonly connector: string;
  readonly encoding: FileEncoding;
}

/**
 * A file's text in the connector's encoding. A file that is not (a windows-1255 export read as UTF-8, whose Hebrew
 * would become U+FFFD and reach the API so) fails the read, naming the line and the setting. `cutTail`: a snapshot,
 * whose last line may be cut mid-write, inside a letter too; it is left out (readSnapshotFile), so only the lines
 * before it must be whole.
 */
async function readText(file: string, owner: FileOwner, cutTail: boolean): Promise<string> {
  const bytes = await readFile(file);
  const text = iconv.decode(bytes, owner.encoding);
  if (owner.encoding !== 'utf-8') return text;
  const endsMidLine = bytes.length > 0 && bytes[bytes.length - 1] !== 0x0a;
  const checked = cutTail && endsMidLine ? bytes.subarray(0, bytes.lastIndexOf(0x0a) + 1) : bytes;
  const line = firstNonUtf8Line(checked);
  if (line === null) return text;
  throw new ConnectorError(
    'connector_input_invalid',
    `${file}: line ${line} is not UTF-8 text, which connectors.${owner.connector}.encoding says the files are: ` +
      'the ERP writes another encoding (a Hebrew export is often windows-1255). Set encoding: windows-1255 if it ' +
      'writes the files so, or have it write UTF-8',
    { connector: owner.connector, retryable: false },
  );
}

export async function readRecords(
  file: string,
  owner: FileOwner,
  separator: string,
): Promise<Record<string, string>[] | null> {
  if (!existsSync(file)) return null;
  return csvRecords(await readText(file, owner, false), separator);
}

/**
 * A snapshot file's records, and whether its text ends with a line break. A non-empty export that ends mid-line
 * was cut short or is still being written, so what it lists may not be everything, and its last record is left out.
 */
export async function readSnapshotFile(
  file: string,
  owner: FileOwner,
  separator: string,
): Promise<{ records: Record<string, string>[]; endsMidLine: boolean } | null> {
  if (!existsSync(file)) return null;
  const text = await readText(file, owner, true);
  const endsMidLine = text.trim() !== '' && !/[\r\n]$/.test(text);
  const records = csvRecords(text, separator);
  // The last record of a file cut mid-line is cut too: never read as if its values were whole.
  return { records: endsMidLine ? records.slice(0, -1) : records, endsMidLine };
}

export async function listCsvFiles(dir: string): Promise<string[]> {
  if (!existsSync(dir)) return [];
  const entries = await readdir(dir, { withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.toLowerCase().endsWith('.csv'))
    .map((entry) => entry.name)
    .sort();
}

/** Moves a processed input file (and its same-named PDF) into `done/`. */
export async function moveToDone(dir: string, name: string): Promise<void> {
  const done = path.join(dir, 'done');
  await mkdir(done, { recursive: true });
  const pdf = `${name.slice(0, -4)}.pdf`;
  // The CSV first: once it is gone the document is no longer pending; a PDF left behind is harmless.
  if (existsSync(path.join(dir, name))) await rename(path.join(dir, name), path.join(done, name));
  if (existsSync(path.join(dir, pdf))) await rename(path.join(dir, pdf), path.join(done, pdf));
}

async function writeDurably(file: string, content: Buffer): Promise<void> {
  const handle = await open(file, 'w');
  try {
    await handle.writeFile(content);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Delivers `name` into `dir` exactly once, even across crashes and even after the ERP has consumed (deleted) it:
 * 1. the content goes to `.supply-sync/tmp/name` (fsync), 2. a marker `.supply-sync/sent/name` records the
 * decision, 3. the temp file is renamed into place. A marker with its temp file still present means step 3 did not
 * happen and is completed; a marker alone means the file was delivered. Returns false when it was already delivered.
 */
export async function deliverOnce(dir: string, name: string, content: Buffer): Promise<boolean> {
  const tmpDir = path.join(dir, '.supply-sync', 'tmp');
  const sentDir = path.join(dir, '.supply-sync', 'sent');
  await mkdir(tmpDir, { recursive: true });
  await mkdir(sentDir, { recursive: true });
  const tmp = path.join(tmpDir, name);
  const marker = path.join(sentDir, name);
  if (existsSync(marker)) {
    if (existsSync(tmp)) await rename(tmp, path.join(dir, name));
    return false;
  }
  await writeDurably(tmp, content);
  await writeDurably(marker, Buffer.alloc(0));
  await rename(tmp, path.join(dir, name));
  return true;
}

export function wasDelivered(dir: string, name: string): boolean {
  return existsSync(path.join(dir, '.supply-sync', 'sent', name));
}
