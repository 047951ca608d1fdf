/**
 * The drop folder's write-back: `.expenses-sent.csv` in the drop folder, one line per sent expense (reference, API
 * expense id, file, time). A line is appended once per reference. A line cut short by a crash is closed before the
 * next append and never counts: a line counts only with all four fields and a whole timestamp, which is written
 * last, so a counted line always holds the whole id.
 */
import { existsSync } from 'node:fs';
import { appendFile, readFile } from 'node:fs/promises';
import { formatCsv, parseCsv } from '../../src/kit/csv.js';

export const SENT_LEDGER = '.expenses-sent.csv';
const HEADER = ['reference', 'api_expense_id', 'file', 'sent_at'];
const WHOLE_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export class SentLedger {
  constructor(private readonly file: string) {}

  /** API expense id by reference, for every complete line. */
  async read(): Promise<Map<string, string>> {
    if (!existsSync(this.file)) return new Map();
    const text = await readFile(this.file, 'utf8');
    const sent = new Map<string, string>();
    for (const row of parseCsv(text, ',').slice(1)) {
      const [ref, id, , at] = row;
      if (row.length === 4 && ref && id && WHOLE_TIMESTAMP.test(at ?? '')) sent.set(ref, id);
    }
    return sent;
  }

  async append(ref: string, apiExpenseId: string, file: string, now: Date): Promise<void> {
    let prefix = '';
    if (!existsSync(this.file)) prefix = formatCsv([HEADER], ',');
    else {
      const text = await readFile(this.file, 'utf8');
      if (text !== '' && !text.endsWith('\n')) prefix = '\r\n';
    }
    await appendFile(
      this.file,
      prefix + formatCsv([[ref, apiExpenseId, file, now.toISOString()]], ','),
      'utf8',
    );
  }
}
