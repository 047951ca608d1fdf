/**
 * A drop folder of expense CSV files. A file is read when its name ends in `.csv`, does not start with a dot and
 * it was last modified at least `min_age` ago: the exporting program should write under a temporary name
 * (`.name.csv` or `name.csv.part`) and rename it into place, which is atomic on one file system; `min_age` guards
 * programs that write in place. Each sent expense is written back into `.expenses-sent.csv` (sent-ledger.ts); once
 * every expense of a file is there, its receipts and then the file itself are moved to done/. A file that cannot
 * be read goes to failed/ with the reason beside it, and is reported to the flow (rejectedFiles). The ledger append and each move to done/ ask the connector's
 * commit gate first: when it refuses, nothing is written and its error is what the caller sees, unchanged.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { ExpenseSource, ListOptions, RejectedFile } from '../../src/connector-contract/capabilities.js';
import { commitFreely, type CommitGate } from '../../src/connector-contract/commit-gate.js';
import type { SourceExpense } from '../../src/connector-contract/expenses.js';
import { moveDropFile, readyFiles, RejectedDropFiles, type DropFolders } from '../../src/kit/drop-folder.js';
import { readDropFileText } from '../../src/kit/drop-file-text.js';
import { cellFormatsOf, type CsvExpensesConfig } from './config.js';
import { ExpenseFileError, parseExpenseFile, type ParsedExpense } from './parse.js';
import { SENT_LEDGER, SentLedger } from './sent-ledger.js';

export {
  dropFolders as expenseFolders,
  type DropFolders as CsvExpenseFolders,
} from '../../src/kit/drop-folder.js';

interface ReadFile {
  name: string;
  expenses: ParsedExpense[];
}

export class CsvExpenseSource implements ExpenseSource {
  readonly #ledger: SentLedger;
  /** From the last listing: the files read, and the file each pending reference came from. */
  #files = new Map<string, ReadFile>();
  #fileOf = new Map<string, string>();
  readonly #rejected: RejectedDropFiles;

  constructor(
    private readonly config: CsvExpensesConfig,
    private readonly folders: DropFolders,
    private readonly now: () => number = Date.now,
    private readonly mayCommit: CommitGate = commitFreely,
  ) {
    this.#ledger = new SentLedger(path.join(folders.inDir, SENT_LEDGER));
    this.#rejected = new RejectedDropFiles(folders);
  }

  /** The files the last listing rejected whole, each moved to failed/ with its reason. */
  rejectedFiles(): readonly RejectedFile[] {
    return this.#rejected.list();
  }

  async listPendingExpenses(options: ListOptions = {}): Promise<SourceExpense[]> {
    this.#rejected.startListing(options);
    const files = await this.#readFiles();
    const sent = await this.#ledger.read();
    this.#files = new Map(files.map((file) => [file.name, file]));
    this.#fileOf = new Map();
    const expenses: SourceExpense[] = [];
    for (const file of files) {
      const pending = file.expenses.filter(({ expense }) => !sent.has(expense.ref));
      if (pending.length === 0) {
        await this.#complete(file);
        continue;
      }
      for (const { expense, attachment } of pending) {
        // A reference twice in the folder is one expense: the later file waits for the earlier one's.
        if (this.#fileOf.has(expense.ref)) continue;
        this.#fileOf.set(expense.ref, file.name);
        const attachmentPaths = attachment === null ? [] : [path.join(this.folders.inDir, attachment)];
        expenses.push({ ...expense, attachmentPaths });
      }
    }
    return expenses;
  }

  async markExpenseSent(ref: string, apiExpenseId: string): Promise<void> {
    const sent = await this.#ledger.read();
    const name = this.#fileOf.get(ref) ?? '';
    if (sent.get(ref) === undefined) {
      await this.mayCommit();
      await this.#ledger.append(ref, apiExpenseId, name, new Date(this.now()));
      sent.set(ref, apiExpenseId);
    }
    const file = this.#files.get(name);
    if (file !== undefined && file.expenses.every(({ expense }) => sent.has(expense.ref))) {
      await this.#complete(file);
    }
  }

  async #readFiles(): Promise<ReadFile[]> {
    const names = await readyFiles(this.folders, {
      suffix: '.csv',
      minAgeMs: this.config.min_age,
      now: this.now,
      skipHidden: true,
    });
    const columns = {
      reference: this.config.reference_column.toLowerCase(),
      attachment: this.config.attachment_column.toLowerCase(),
    };
    const formats = cellFormatsOf(this.config);
    const files: ReadFile[] = [];
    for (const name of names) {
      const text = await readDropFileText(this.folders, name, this.config.encoding, this.#rejected);
      if (text === undefined) continue;
      try {
        files.push({ name, expenses: parseExpenseFile(text, this.config.separator, columns, formats) });
      } catch (error) {
        if (!(error instanceof ExpenseFileError)) throw error;
        // An unreadable file goes to failed/ at once, with the reason beside it; the flow files it as a dead letter
        // of its own (rejectedFiles).
        await this.#rejected.reject(name, error.message, error.line);
      }
    }
    return files;
  }

  /** Every expense of the file is sent: its receipts (unless a pending file still names them), then the file. */
  async #complete(file: ReadFile): Promise<void> {
    const stillNeeded = new Set(
      [...this.#files.values()]
        .filter((other) => other.name !== file.name)
        .flatMap((other) => other.expenses.map((e) => e.attachment)),
    );
    for (const { attachment } of file.expenses) {
      if (attachment === null || stillNeeded.has(attachment)) continue;
      if (existsSync(path.join(this.folders.inDir, attachment))) await this.#moveToDone(attachment);
    }
    if (existsSync(path.join(this.folders.inDir, file.name))) await this.#moveToDone(file.name);
    this.#files.delete(file.name);
  }

  async #moveToDone(name: string): Promise<void> {
    await this.mayCommit();
    await moveDropFile(this.folders, name, this.folders.doneDir);
  }
}
