/** The part every run shares: pull the approved lines into a fresh staging, walk its documents, drop it. */
import { stageApprovedLines, type JournalExportApi } from './api.js';
import type { JournalExportOptions } from '../shared/journal-mapping/options.js';
import { LineStaging, type StagedDocument } from './staging.js';

export function bump(counts: Record<string, number>, name: string, by = 1): void {
  counts[name] = (counts[name] ?? 0) + by;
}

/**
 * Pulls into a new staging, hands its documents to `use` (counting their lines as `lines_fetched`), and always
 * closes the staging, which deletes it.
 */
export async function withStagedLines<T>(
  api: JournalExportApi,
  options: JournalExportOptions,
  signal: AbortSignal,
  counts: Record<string, number>,
  use: (documents: Iterable<StagedDocument>) => Promise<T>,
): Promise<T> {
  const staging = new LineStaging();
  try {
    const pulled = await stageApprovedLines(api, options, staging, signal);
    counts['quarantined'] = pulled.quarantined;
    counts['lines_fetched'] = 0;
    return await use(counted(staging.documents(), counts));
  } finally {
    staging.close();
  }
}

function* counted(
  documents: Iterable<StagedDocument>,
  counts: Record<string, number>,
): Generator<StagedDocument, void, undefined> {
  for (const document of documents) {
    bump(counts, 'lines_fetched', document.lines.length);
    yield document;
  }
}
