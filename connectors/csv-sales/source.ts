/**
 * A drop folder of POS sales files (src/kit/drop-folder.ts). Each `.csv` file is one batch; after the flow has kept
 * the results it is moved to done/ or failed/; a file that cannot be read is moved to failed/ at once and handed
 * to the flow as rejected whole. Files the POS writes should appear under their final name in one
 * step (write to a temporary name, then rename); files younger than `min_age` are left for the next run in case
 * they are still being written.
 */
import type { ListOptions, RejectedFile, SalesSource } from '../../src/connector-contract/capabilities.js';
import type { SalesBatch } from '../../src/connector-contract/sales.js';
import { moveDropFile, readyFiles, RejectedDropFiles, type DropFolders } from '../../src/kit/drop-folder.js';
import { readDropFileText } from '../../src/kit/drop-file-text.js';
import type { CsvSalesConfig } from './config.js';
import { parseSalesFile, SalesFileError } from './parse.js';

export {
  dropFolders as salesFolders,
  type DropFolders as CsvSalesFolders,
} from '../../src/kit/drop-folder.js';

export class CsvSalesSource implements SalesSource {
  readonly #rejected: RejectedDropFiles;

  constructor(
    private readonly config: CsvSalesConfig,
    private readonly folders: DropFolders,
    private readonly now: () => number = Date.now,
  ) {
    this.#rejected = new RejectedDropFiles(folders);
  }

  /** The files the last listing rejected whole, each moved to failed/ with its reason. */
  rejectedFiles(): readonly RejectedFile[] {
    return this.#rejected.list();
  }

  async listPendingSales(options: ListOptions = {}): Promise<SalesBatch[]> {
    this.#rejected.startListing(options);
    const names = await readyFiles(this.folders, {
      suffix: '.csv',
      minAgeMs: this.config.min_age,
      now: this.now,
      skipHidden: false,
    });
    const batches: SalesBatch[] = [];
    for (const name of names) {
      const text = await readDropFileText(this.folders, name, this.config.encoding, this.#rejected);
      if (text === undefined) continue;
      try {
        batches.push(parseSalesFile(name, text, this.config.separator));
      } catch (error) {
        if (!(error instanceof SalesFileError)) throw error;
        // An unreadable file goes to failed/ at once, with the reason beside it; the flow files it as a dead letter
        // of its own (rejectedFiles).
        await this.#rejected.reject(name, error.message, error.line);
      }
    }
    return batches;
  }

  async markSalesBatch(ref: string, outcome: 'done' | 'failed'): Promise<void> {
    await moveDropFile(this.folders, ref, outcome === 'done' ? this.folders.doneDir : this.folders.failedDir);
  }
}
