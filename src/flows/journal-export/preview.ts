/**
 * The dry run's output: what the batches would hold, written to a JSON file, with nothing written or exported.
 * Batches are appended to a temporary file as the run plans them (a preview of a million lines never sits in
 * memory), which replaces the preview file only once complete.
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { mkdir, open, rename, rm, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { syncFolder, TEMP_PREFIX } from '../shared/atomic-file.js';
import type { BatchPlan } from './plans.js';
import type { FailedGroup } from './select.js';

export interface Preview {
  readonly generated_at: string;
  readonly pending_batches: number;
  readonly batches: readonly {
    batch_key: string;
    line_ids: readonly string[];
    entries: BatchPlan['batch']['entries'];
  }[];
  readonly dead_letters: readonly { document_id: string; kind: string; reason: string }[];
}

type PreviewDeadLetter = Preview['dead_letters'][number];

export class PreviewWriter {
  /** Dead letters are few and small, and come last in the file: they are kept until then. */
  readonly #deadLetters: PreviewDeadLetter[] = [];
  #batches = 0;

  private constructor(
    private readonly file: string,
    private readonly temp: string,
    private readonly handle: FileHandle,
  ) {}

  static async open(file: string, pendingBatches: number, now: number): Promise<PreviewWriter> {
    const folder = dirname(file);
    await mkdir(folder, { recursive: true });
    const temp = join(folder, `${TEMP_PREFIX}${basename(file)}-${randomBytes(6).toString('hex')}`);
    const handle = await open(temp, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, 0o644);
    const writer = new PreviewWriter(file, temp, handle);
    const head = `{\n  "generated_at": ${JSON.stringify(new Date(now).toISOString())},\n  "pending_batches": ${pendingBatches},\n  "batches": [`;
    await writer.#write(head);
    return writer;
  }

  async batch(plan: BatchPlan): Promise<void> {
    const item = { batch_key: plan.batchKey, line_ids: plan.lineIds, entries: plan.batch.entries };
    await this.#write(`${this.#batches === 0 ? '' : ','}\n    ${indent(item)}`);
    this.#batches += 1;
  }

  deadLetter(failure: FailedGroup): void {
    this.#deadLetters.push({
      document_id: failure.group.documentId,
      kind: failure.kind,
      reason: failure.reason,
    });
  }

  /** Completes the file and puts it in place of the preview file. */
  async finish(): Promise<void> {
    const letters = this.#deadLetters.map((letter) => `\n    ${indent(letter)}`).join(',');
    await this.#write(
      `${this.#batches === 0 ? ']' : '\n  ]'},\n  "dead_letters": [${letters}${letters === '' ? ']' : '\n  ]'}\n}\n`,
    );
    await this.handle.sync();
    await this.handle.close();
    await rename(this.temp, this.file);
    await syncFolder(dirname(this.file));
  }

  /** Drops the unfinished file; the previous preview, if any, stays. */
  async abandon(): Promise<void> {
    await this.handle.close().catch(() => undefined);
    await rm(this.temp, { force: true });
  }

  async #write(text: string): Promise<void> {
    await this.handle.write(text);
  }
}

function indent(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(/\n/g, '\n    ');
}
