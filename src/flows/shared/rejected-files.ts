/**
 * Files a drop-folder source rejected whole (docs/operations.md, "Run outcomes"): each is a dead letter of its own
 * under the key `file:<name>`, naming the file, the first line at fault and the reason, with a log line, and is
 * held back in the run's tally. Every flow that reads a drop folder files them here.
 */
import type { RejectedFile } from '../../connector-contract/index.js';
import type { JobContext } from '../../engine/index.js';
import type { HeldBackReasons } from './held-back.js';

const FILE_KEY_PREFIX = 'file:';

/** The dead letter key of a rejected file; letters under it hold no record a flow can send again. */
export function isRejectedFileKey(recordKey: string): boolean {
  return recordKey.startsWith(FILE_KEY_PREFIX);
}

export interface RejectedFileWords {
  /** What the files hold, as a person names them: "expenses", "sales". */
  readonly kind: string;
  /** What to change so the file reads, before it is dropped into the folder again. */
  readonly fix: string;
}

/**
 * Files each rejected file (not in a dry run, which only counts), counts it under `files_rejected` and its reason
 * under `reasons`; returns how many there were, for the flow's tally.
 */
export function fileRejectedFiles(
  job: string,
  ctx: JobContext,
  rejected: readonly RejectedFile[],
  words: RejectedFileWords,
  held: { readonly counts: Record<string, number>; readonly reasons: HeldBackReasons },
): number {
  for (const file of rejected) {
    const at = file.line === null ? '' : ` at line ${file.line}`;
    const reason =
      `${words.kind} file ${file.file} rejected whole${at} (moved to ${file.movedTo}): ${file.reason}; ` +
      `${words.fix}, and drop it into the folder again`;
    if (!ctx.dryRun) ctx.state.deadLetters.add(job, `${FILE_KEY_PREFIX}${file.file}`, { ...file }, reason);
    ctx.logger.warn({ file: file.file, line: file.line, reason: file.reason }, `${words.kind} file rejected`);
    held.counts['files_rejected'] = (held.counts['files_rejected'] ?? 0) + 1;
    held.reasons[`file ${file.file} rejected${at}`] = 1;
  }
  return rejected.length;
}
