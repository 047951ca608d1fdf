/**
 * Recognising the books folder written to before. Writes create a missing folder, and a missing counter file reads
 * as a fresh sequence: a folder renamed away, or a share not mounted (an empty mount point), would be started afresh
 * without a word, giving out references that already belong to documents in the real folder and losing sight of the
 * batches written there. So the mark kept outside the folder (the folder and the counter's next number after the
 * last batch written) must be met by the folder: it is there, its counter file is there and not behind.
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { TargetMark } from '../../src/connector-contract/capabilities.js';
import { ConnectorError } from '../../src/connector-contract/errors.js';
import { isNotFound } from '../../src/kit/atomic-file.js';
import { SEQUENCE_FILE, type SequenceCache, type SequenceState } from './references.js';

interface FolderMark {
  readonly folder: string;
  readonly next: number;
}

/** Where errors point: the connector, and the config file its block came from when known. */
export interface MarkOrigin {
  readonly connector: string;
  readonly configFile: string | undefined;
}

export class FolderMarkKeeper implements TargetMark {
  #mark: FolderMark | null = null;

  constructor(
    private readonly folder: string,
    private readonly start: number,
    private readonly cache: SequenceCache,
    private readonly origin: MarkOrigin,
  ) {}

  async verify(saved: string | null): Promise<void> {
    const mark = parseMark(saved);
    // A mark of another folder stays behind when import_dir is changed on purpose: the new folder is new.
    this.#mark = mark?.folder === this.folder ? mark : null;
    const counter = await this.check();
    // A folder written to before the mark was kept (an upgrade) is recognised from now on.
    if (this.#mark === null && counter !== null) this.#mark = { folder: this.folder, next: counter.next };
  }

  current(): string | null {
    return this.#mark === null ? null : JSON.stringify(this.#mark);
  }

  /** The folder's counter, null while it has none; throws when the folder falls short of the mark. */
  async check(): Promise<SequenceState | null> {
    const counter = await this.cache.read(join(this.folder, SEQUENCE_FILE), this.start);
    const mark = this.#mark;
    if (mark === null) return counter;
    if (counter === null) throw (await folderExists(this.folder)) ? this.#noCounter(mark) : this.#gone(mark);
    if (counter.next < mark.next) throw this.#behind(mark, counter.next);
    return counter;
  }

  /** A batch was written and the counter now says `next`. */
  wrote(next: number): void {
    this.#mark = { folder: this.folder, next: Math.max(this.#mark?.next ?? next, next) };
  }

  #gone(mark: FolderMark): ConnectorError {
    return this.#error(
      `the books folder ${this.folder} is missing, but supply-sync has written batches there before (its ` +
        `reference counter stood at ${mark.next}); nothing was written and nothing was marked exported. If it is ` +
        'a network share, mount the share or restore the folder (or point import_dir at where it is now), then ' +
        `run again. ${this.#afresh(mark)}`,
    );
  }

  #noCounter(mark: FolderMark): ConnectorError {
    return this.#error(
      `the books folder ${this.folder} has no ${SEQUENCE_FILE}, but supply-sync has written batches there ` +
        `before (its reference counter stood at ${mark.next}): it may be the empty mount point of a share that ` +
        'is not mounted, or another folder; nothing was written and nothing was marked exported. Mount the share ' +
        `or restore the folder, then run again. ${this.#afresh(mark)}`,
    );
  }

  #behind(mark: FolderMark, next: number): ConnectorError {
    return this.#error(
      `${SEQUENCE_FILE} in the books folder ${this.folder} says the next reference is ${next}, but supply-sync ` +
        `has already given out references up to ${mark.next - 1} there: the folder or its counter was restored ` +
        'from an older copy, and numbering from it would give two documents one reference; nothing was written ' +
        `and nothing was marked exported. Restore the newer folder, or set "next": ${mark.next} in ` +
        `${SEQUENCE_FILE}, then run again.`,
    );
  }

  #afresh(mark: FolderMark): string {
    return (
      'If you mean to start afresh on purpose, create the folder with a file ' +
      `${SEQUENCE_FILE} holding {"next": ${mark.next}, "assigned": {}}, so no reference given out is given ` +
      'again, or point import_dir at a new folder.'
    );
  }

  #error(message: string): ConnectorError {
    const file = this.origin.configFile === undefined ? '' : `${this.origin.configFile}: `;
    return new ConnectorError(
      'connector_unreachable',
      `${file}connectors.${this.origin.connector}.import_dir: ${message}`,
      { connector: this.origin.connector, retryable: false },
    );
  }
}

function parseMark(saved: string | null): FolderMark | null {
  if (saved === null) return null;
  const parsed: unknown = JSON.parse(saved);
  if (parsed === null || typeof parsed !== 'object') return null;
  const { folder, next } = parsed as Record<string, unknown>;
  return typeof folder === 'string' && typeof next === 'number' ? { folder, next } : null;
}

async function folderExists(folder: string): Promise<boolean> {
  try {
    return (await stat(folder)).isDirectory();
  } catch (error) {
    if (isNotFound(error)) return false;
    throw error;
  }
}
