/**
 * The dry run's output: what the batches would hold, written to a JSON file, with nothing written or exported.
 * Batches are appended to a temporary file as the run plans them, and dead letters to a second one that is copied
 * in behind the batches at the end (a preview of a million lines never sits in memory, even when most of its
 * documents fail); the result replaces the preview file only once complete.
 */
import { randomBytes } from 'node:crypto';
import { constants, createReadStream } from 'node:fs';
import { mkdir, open, rename, rm, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { syncFolder, TEMP_PREFIX } from '../../kit/atomic-file.js';
import type { BatchPlan } from './plans.js';
import { allMissingOf, type FailedGroup } from './select.js';

export interface Preview {
  readonly generated_at: string;
  readonly pending_batches: number;
  readonly batches: readonly {
    batch_key: string;
    line_ids: readonly string[];
    entries: BatchPlan['batch']['entries'];
  }[];
  readonly dead_letters: readonly {
    document_id: string;
    kind: string;
    reason: string;
    /** Every value of the document its mapping tables have no entry for, not only the one in `reason`. */
    missing?: readonly { table: string; key: string }[];
  }[];
}

type PreviewDeadLetter = Preview['dead_letters'][number];

const SPOOL_CHUNK_CHARS = 64 * 1024;

export class PreviewWriter {
  #batches = 0;
  #deadLetters = 0;
  /** Dead letters not yet in the spool file: written in chunks, not one system call each. */
  #unwritten: string[] = [];
  #unwrittenChars = 0;

  private constructor(
    private readonly file: string,
    private readonly temp: string,
    private readonly handle: FileHandle,
    private readonly lettersTemp: string,
    private readonly letters: FileHandle,
  ) {}

  static async open(file: string, pendingBatches: number, now: number): Promise<PreviewWriter> {
    const folder = dirname(file);
    await mkdir(folder, { recursive: true });
    const temp = join(folder, `${TEMP_PREFIX}${basename(file)}-${randomBytes(6).toString('hex')}`);
    const flags = constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY;
    const handle = await open(temp, flags, 0o644);
    const lettersTemp = `${temp}.dead-letters`;
    const letters = await open(lettersTemp, flags, 0o600).catch(async (error: unknown) => {
      await handle.close();
      await rm(temp, { force: true });
      throw error;
    });
    const writer = new PreviewWriter(file, temp, handle, lettersTemp, letters);
    const head = `{\n  "generated_at": ${JSON.stringify(new Date(now).toISOString())},\n  "pending_batches": ${pendingBatches},\n  "batches": [`;
    await writer.handle.write(head);
    return writer;
  }

  async batch(plan: BatchPlan): Promise<void> {
    const item = { batch_key: plan.batchKey, line_ids: plan.lineIds, entries: plan.batch.entries };
    await this.handle.write(`${this.#batches === 0 ? '' : ','}\n    ${indent(item)}`);
    this.#batches += 1;
  }

  async deadLetter(failure: FailedGroup): Promise<void> {
    const letter: PreviewDeadLetter = {
      document_id: failure.group.documentId,
      kind: failure.kind,
      reason: failure.reason,
    };
    const missing = allMissingOf(failure);
    if (missing.length > 0) letter.missing = missing.map(({ table, key }) => ({ table, key }));
    const text = `${this.#deadLetters === 0 ? '' : ','}\n    ${indent(letter)}`;
    this.#deadLetters += 1;
    this.#unwritten.push(text);
    this.#unwrittenChars += text.length;
    if (this.#unwrittenChars >= SPOOL_CHUNK_CHARS) await this.#spool();
  }

  async #spool(): Promise<void> {
    if (this.#unwritten.length === 0) return;
    const text = this.#unwritten.join('');
    this.#unwritten = [];
    this.#unwrittenChars = 0;
    await this.letters.write(text);
  }

  /** Completes the file and puts it in place of the preview file. */
  async finish(): Promise<void> {
    await this.handle.write(`${this.#batches === 0 ? ']' : '\n  ]'},\n  "dead_letters": [`);
    await this.#spool();
    await this.letters.close();
    for await (const chunk of createReadStream(this.lettersTemp)) await this.handle.write(chunk as Buffer);
    await rm(this.lettersTemp, { force: true });
    await this.handle.write(`${this.#deadLetters === 0 ? ']' : '\n  ]'}\n}\n`);
    await this.handle.sync();
    await this.handle.close();
    await rename(this.temp, this.file);
    await syncFolder(dirname(this.file));
  }

  /** Drops the unfinished files; the previous preview, if any, stays. */
  async abandon(): Promise<void> {
    await this.handle.close().catch(() => undefined);
    await this.letters.close().catch(() => undefined);
    await rm(this.temp, { force: true });
    await rm(this.lettersTemp, { force: true });
  }
}

function indent(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(/\n/g, '\n    ');
}
