/**
 * A drop folder of POS sales files. Each `.csv` file is one batch; after the flow has kept the results it is moved
 * to done/ or failed/ with a rename (atomic on one file system, so a file is either pending or moved, never half).
 * Files the POS writes should appear under their final name in one step (write to a temporary name, then rename);
 * files younger than `min_age` are left for the next run in case they are still being written.
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import iconv from 'iconv-lite';
import type { SalesSource } from '../../src/connector-contract/capabilities.js';
import type { SalesBatch } from '../../src/connector-contract/sales.js';
import type { CsvSalesConfig } from './config.js';
import { parseSalesFile, SalesFileError } from './parse.js';

export interface CsvSalesFolders {
  inDir: string;
  doneDir: string;
  failedDir: string;
}

export function salesFolders(config: CsvSalesConfig, baseDir: string): CsvSalesFolders {
  const inDir = path.resolve(baseDir, config.in_dir);
  return {
    inDir,
    doneDir: path.resolve(inDir, config.done_dir),
    failedDir: path.resolve(inDir, config.failed_dir),
  };
}

/** A free name in `dir`: the same name, or name-2.csv, name-3.csv... when a file of that name was moved before. */
function freeName(dir: string, name: string): string {
  if (!existsSync(path.join(dir, name))) return name;
  const ext = path.extname(name);
  const stem = name.slice(0, name.length - ext.length);
  for (let n = 2; ; n++) {
    const candidate = `${stem}-${n}${ext}`;
    if (!existsSync(path.join(dir, candidate))) return candidate;
  }
}

export class CsvSalesSource implements SalesSource {
  constructor(
    private readonly config: CsvSalesConfig,
    private readonly folders: CsvSalesFolders,
    private readonly now: () => number = Date.now,
  ) {}

  async listPendingSales(): Promise<SalesBatch[]> {
    const { inDir } = this.folders;
    if (!existsSync(inDir)) return [];
    const entries = await readdir(inDir, { withFileTypes: true });
    const names = entries
      .filter((entry) => entry.isFile() && entry.name.toLowerCase().endsWith('.csv'))
      .map((entry) => entry.name)
      .sort();
    const batches: SalesBatch[] = [];
    for (const name of names) {
      const file = path.join(inDir, name);
      const info = await stat(file);
      // With min_age 0 every file is taken: a modification time a moment ahead of this clock (the file system's
      // own clock, a share's server) must not hold it back.
      if (this.config.min_age > 0 && this.now() - info.mtimeMs < this.config.min_age) continue;
      const text = iconv.decode(await readFile(file), this.config.encoding);
      try {
        batches.push(parseSalesFile(name, text, this.config.separator));
      } catch (error) {
        if (!(error instanceof SalesFileError)) throw error;
        await this.#reject(name, error.message);
      }
    }
    return batches;
  }

  async markSalesBatch(ref: string, outcome: 'done' | 'failed'): Promise<void> {
    await this.#move(ref, outcome === 'done' ? this.folders.doneDir : this.folders.failedDir);
  }

  /** An unreadable file goes to failed/ at once, with the reason beside it (the flow never sees it). */
  async #reject(name: string, reason: string): Promise<void> {
    const moved = await this.#move(name, this.folders.failedDir);
    const note = path.join(this.folders.failedDir, `${moved}.error.txt`);
    const tmp = `${note}.tmp`;
    await writeFile(tmp, `${reason}\n`, 'utf8');
    await rename(tmp, note);
  }

  async #move(name: string, targetDir: string): Promise<string> {
    if (path.basename(name) !== name) throw new Error(`"${name}" is not a file name of the drop folder`);
    const source = path.join(this.folders.inDir, name);
    if (!existsSync(source)) {
      // Moved by an earlier call that was interrupted before it returned: nothing left to do.
      if (existsSync(path.join(targetDir, name))) return name;
      throw new Error(`sales file ${name} is neither in the drop folder nor in ${path.basename(targetDir)}/`);
    }
    await mkdir(targetDir, { recursive: true });
    const target = freeName(targetDir, name);
    await rename(source, path.join(targetDir, target));
    return target;
  }
}
