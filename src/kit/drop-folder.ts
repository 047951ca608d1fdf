/**
 * A drop folder another program fills with files (`in_dir`), and the folders processed files move to (`done_dir`,
 * `failed_dir`, relative to `in_dir` unless absolute). A file is moved with a rename: atomic on one file system, so
 * it is either pending or moved, never half. The program writing the files should make each appear under its final
 * name in one step (write to a temporary name, then rename); files younger than a minimum age are left for the next
 * run in case they are still being written.
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, rename, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ListOptions, RejectedFile } from '../connector-contract/capabilities.js';
import { ConnectorError } from '../connector-contract/errors.js';

export interface DropFolders {
  readonly inDir: string;
  readonly doneDir: string;
  readonly failedDir: string;
  /** The connector whose folders they are, and the config file its block came from, for errors. */
  readonly origin?: DropFolderOrigin;
}

export interface DropFolderOrigin {
  readonly connector: string;
  readonly configFile?: string | undefined;
}

/** `<file>: connectors.<name>.<key>`, as a message names a setting of the connector. */
export function dropFolderSetting(folders: DropFolders, key: string): string {
  const { origin } = folders;
  if (origin === undefined) return key;
  const file = origin.configFile === undefined ? '' : `${origin.configFile}: `;
  return `${file}connectors.${origin.connector}.${key}`;
}

/** The options a drop-folder connector's config has for its folders. */
export interface DropFolderConfig {
  readonly in_dir: string;
  readonly done_dir: string;
  readonly failed_dir: string;
}

export function dropFolders(
  config: DropFolderConfig,
  baseDir: string,
  origin?: DropFolderOrigin,
): DropFolders {
  const inDir = path.resolve(baseDir, config.in_dir);
  return {
    inDir,
    doneDir: path.resolve(inDir, config.done_dir),
    failedDir: path.resolve(inDir, config.failed_dir),
    ...(origin === undefined ? {} : { origin }),
  };
}

export interface ReadyFileOptions {
  /** The file name's ending, matched without regard to case (".csv"). */
  readonly suffix: string;
  /** Files modified less than this many milliseconds ago are left; 0 takes every file. */
  readonly minAgeMs: number;
  readonly now: () => number;
  /** Leave names starting with a dot: temporary names of a writer, or the connector's own files. */
  readonly skipHidden: boolean;
}

/**
 * The names of the files in the drop folder ready to be read, sorted. A folder that is not there fails the run: a
 * misspelt in_dir, or a share that is not mounted, would otherwise read as a quiet day with nothing to send.
 */
export async function readyFiles(folders: DropFolders, options: ReadyFileOptions): Promise<string[]> {
  if (!existsSync(folders.inDir)) {
    throw new ConnectorError(
      'connector_config_invalid',
      `${dropFolderSetting(folders, 'in_dir')}: the drop folder ${folders.inDir} does not exist, so no file could ` +
        'be read. Create it (or mount the share it is on), or point in_dir at the folder the files are put in, ' +
        'then run again',
      { connector: folders.origin?.connector ?? 'drop folder', retryable: false },
    );
  }
  const suffix = options.suffix.toLowerCase();
  const names = (await readdir(folders.inDir, { withFileTypes: true }))
    .filter((entry) => entry.isFile() && entry.name.toLowerCase().endsWith(suffix))
    .filter((entry) => !(options.skipHidden && entry.name.startsWith('.')))
    .map((entry) => entry.name)
    .sort();
  const ready: string[] = [];
  for (const name of names) {
    // With a minimum age of 0 every file is taken: a modification time a moment ahead of this clock (the file
    // system's own clock, a share's server) must not hold it back.
    if (options.minAgeMs > 0) {
      const info = await stat(path.join(folders.inDir, name));
      if (options.now() - info.mtimeMs < options.minAgeMs) continue;
    }
    ready.push(name);
  }
  return ready;
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

/**
 * Moves a file of the drop folder into `targetDir` under a free name, and returns that name. A file already gone
 * from the drop folder but present in `targetDir` was moved by an earlier call interrupted before it returned:
 * nothing is left to do.
 */
export async function moveDropFile(folders: DropFolders, name: string, targetDir: string): Promise<string> {
  if (path.basename(name) !== name) throw new Error(`"${name}" is not a file name of the drop folder`);
  const source = path.join(folders.inDir, name);
  if (!existsSync(source)) {
    if (existsSync(path.join(targetDir, name))) return name;
    throw new Error(`file ${name} is neither in the drop folder nor in ${path.basename(targetDir)}/`);
  }
  await mkdir(targetDir, { recursive: true });
  const target = freeName(targetDir, name);
  await rename(source, path.join(targetDir, target));
  return target;
}

/**
 * A file that cannot be read goes to the failed folder at once, with the reason beside it in `<name>.error.txt`;
 * returns its name there.
 */
export async function rejectDropFile(folders: DropFolders, name: string, reason: string): Promise<string> {
  const moved = await moveDropFile(folders, name, folders.failedDir);
  const note = path.join(folders.failedDir, `${moved}.error.txt`);
  const tmp = `${note}.tmp`;
  await writeFile(tmp, `${reason}\n`, 'utf8');
  await rename(tmp, note);
  return moved;
}

/**
 * The files one listing of a drop folder rejected whole: each goes to the failed folder at once with its reason
 * beside it (rejectDropFile) and is kept here, so the source can hand it to its flow, which files it as a dead
 * letter of its own. Every drop-folder source rejects files through this one place.
 */
export class RejectedDropFiles {
  #files: RejectedFile[] = [];
  #dryRun = false;

  constructor(private readonly folders: DropFolders) {}

  /** Forgets the last listing's files; called as a new listing starts. A dry run's listing moves nothing. */
  startListing(options: ListOptions = {}): void {
    this.#files = [];
    this.#dryRun = options.dryRun === true;
  }

  list(): readonly RejectedFile[] {
    return this.#files;
  }

  /**
   * Moves the file to the failed folder with its reason and remembers it; `line` is the first line at fault. In a
   * dry run the file stays where it is and is remembered with the place it would go to.
   */
  async reject(name: string, reason: string, line: number | null): Promise<void> {
    const moved = this.#dryRun ? name : await rejectDropFile(this.folders, name, reason);
    this.#files.push({ file: name, movedTo: path.join(this.folders.failedDir, moved), line, reason });
  }
}
