/**
 * First-run backfill through POST /exports: create one export job for every exportable resource, poll it with
 * backoff until completed, stream each NDJSON file into its table, then start each resource's incremental cursor
 * at the export's snapshot time minus the overlap. Progress (job id, files loaded) is kept in the state, so a run
 * cut short resumes polling the same job instead of creating another; files are reloaded whole (upserts by id).
 */
import type { Dispatcher } from 'undici';
import { ApiError, type ApiClient } from '../../client/index.js';
import type { ExportJob } from '../../contract/index.js';
import type { MirrorRow, MirrorSink } from '../../connector-contract/index.js';
import { idempotencyKey, type RunBudget } from '../../engine/index.js';
import type { Clock } from '../../shared/clock.js';
import type { StateStore } from '../../state/index.js';
import { ndjsonLines } from './ndjson.js';
import type { MirrorOptions } from './options.js';
import { deadLetterFlow, streamName } from './pull-stream.js';
import type { ApiRecord, PagedResource } from './resources.js';
import type { MirrorTable } from './tables.js';

const NAMESPACE = 'mirror-backfill';
const FIRST_POLL_MS = 250;
/** After this many export jobs that failed or expired, the mirror pages from the start instead. */
const MAX_EXPORT_ATTEMPTS = 3;
const MAX_POLL_MS = 10_000;

interface Exporting {
  phase: 'exporting';
  attempt: number;
  exportId: string | null;
  loaded: string[];
}

type BackfillState = { phase: 'skipped' | 'done'; reason: string } | Exporting;

export interface BackfillTarget {
  resource: PagedResource & { exportName: string };
  table: MirrorTable;
}

export interface BackfillInput {
  job: string;
  api: ApiClient;
  sink: MirrorSink;
  state: StateStore;
  clock: Clock;
  budget: RunBudget;
  options: MirrorOptions;
  targets: readonly BackfillTarget[];
  dispatcher?: () => Promise<Dispatcher>;
}

export type BackfillResult =
  | { status: 'not_needed'; reason: string }
  | { status: 'waiting' }
  | { status: 'done'; rows: number; deadLettered: number; exportId: string };

function readState(state: StateStore, job: string): BackfillState | null {
  const value = state.kv.get(NAMESPACE, job);
  return typeof value === 'object' && value !== null && 'phase' in value ? (value as BackfillState) : null;
}

function saveState(state: StateStore, job: string, value: BackfillState): void {
  state.kv.set(NAMESPACE, job, value);
}

/** Why no backfill is needed, or null when this is a first run that should ask for one. */
async function firstRunCheck(input: BackfillInput): Promise<string | null> {
  if (input.options.backfill === 'never') return 'backfill is off in the options';
  if (input.targets.length === 0) return 'no selected resource can be exported';
  const started = input.targets.some(
    (t) => input.state.cursors.get(streamName(input.job, t.resource)) !== null,
  );
  if (started) return 'the mirror has already pulled';
  const me = await input.api.account.me({ signal: input.budget.signal });
  if (!me.features.includes('bulk_export')) return 'the plan has no bulk_export feature';
  return null;
}

export async function runBackfill(input: BackfillInput): Promise<BackfillResult> {
  const pending = await exportToRun(input);
  if ('status' in pending) return pending;
  const started = await startExport(input, pending);
  if ('status' in started) return started;
  const { current } = started;
  const exportJob = await pollUntilFinished(input, started.exportJob);
  if (exportJob.status === 'queued' || exportJob.status === 'running') return { status: 'waiting' };
  if (exportJob.status !== 'completed') {
    // A failed or expired job cannot be loaded: the next run asks for a new one.
    saveState(input.state, input.job, {
      phase: 'exporting',
      attempt: current.attempt + 1,
      exportId: null,
      loaded: [],
    });
    throw new Error(
      `export job ${exportJob.id} ended ${exportJob.status}${exportJob.error ? `: ${exportJob.error}` : ''}`,
    );
  }
  const { rows, deadLettered, loaded } = await loadFiles(input, current, exportJob);
  startCursors(input, exportJob, loaded);
  return { status: 'done', rows, deadLettered, exportId: exportJob.id };
}

/** The export this run goes on with (or a first one), or the result when no backfill is to run. */
async function exportToRun(input: BackfillInput): Promise<Exporting | BackfillResult> {
  const stored = readState(input.state, input.job);
  if (stored?.phase === 'skipped' || stored?.phase === 'done') {
    return { status: 'not_needed', reason: stored.reason };
  }
  if (stored === null) {
    const reason = await firstRunCheck(input);
    if (reason !== null) return skip(input, reason);
  }
  const current: Exporting =
    stored?.phase === 'exporting'
      ? stored
      : {
          phase: 'exporting',
          attempt: 1,
          exportId: null,
          loaded: [],
        };
  if (current.attempt > MAX_EXPORT_ATTEMPTS) {
    return skip(input, `${MAX_EXPORT_ATTEMPTS} export jobs failed; paging instead`);
  }
  return current;
}

function skip(input: BackfillInput, reason: string): BackfillResult {
  saveState(input.state, input.job, { phase: 'skipped', reason });
  return { status: 'not_needed', reason };
}

/** Creates the export job and saves its id, or reads the one created before. */
async function startExport(
  input: BackfillInput,
  current: Exporting,
): Promise<{ current: Exporting; exportJob: ExportJob } | BackfillResult> {
  if (current.exportId !== null) {
    const exportJob = await input.api.exports.get(current.exportId, { signal: input.budget.signal });
    return { current, exportJob };
  }
  const resources = input.targets.map((t) => t.resource.exportName);
  let exportJob: ExportJob;
  try {
    exportJob = await input.api.exports.create(
      { resources, format: 'ndjson' },
      {
        signal: input.budget.signal,
        idempotencyKey: idempotencyKey('mirror-backfill', input.job, String(current.attempt)),
      },
    );
  } catch (error) {
    // The plan lists bulk_export but this key may not use it (scope exports:manage): page instead.
    if (!(error instanceof ApiError) || error.status !== 403) throw error;
    return skip(input, `POST /exports refused (${error.code}); paging instead`);
  }
  const started = { ...current, exportId: exportJob.id };
  saveState(input.state, input.job, started);
  return { current: started, exportJob };
}

/** Loads each file not loaded yet, saving after each one that it is. */
async function loadFiles(
  input: BackfillInput,
  current: Exporting,
  exportJob: ExportJob,
): Promise<{ rows: number; deadLettered: number; loaded: ReadonlySet<string> }> {
  let rows = 0;
  let deadLettered = 0;
  const loaded = new Set(current.loaded);
  for (const file of exportJob.files ?? []) {
    const target = input.targets.find((t) => t.resource.exportName === file.resource);
    if (target === undefined || loaded.has(file.resource)) continue;
    const result = await loadFile(input, target, file.download_url);
    rows += result.rows;
    deadLettered += result.deadLettered;
    loaded.add(file.resource);
    saveState(input.state, input.job, { ...current, loaded: [...loaded] });
  }
  return { rows, deadLettered, loaded };
}

/** Starts the cursor of each loaded resource at the export's snapshot and ends the backfill, in one transaction. */
function startCursors(input: BackfillInput, exportJob: ExportJob, loaded: ReadonlySet<string>): void {
  const { state, job } = input;
  // The contract does not say when the snapshot is taken; the job's creation is the earliest moment it can be,
  // so changes after it are pulled again (an idempotent upsert) rather than missed.
  const snapshotMs = Date.parse(exportJob.created_at);
  const exportId = exportJob.id;
  state.transaction(() => {
    for (const target of input.targets) {
      if (!loaded.has(target.resource.exportName)) continue;
      state.cursors.save({
        stream: streamName(job, target.resource),
        watermarkMs: snapshotMs - input.options.overlap,
        passCursor: null,
        passSince: null,
        passMaxMs: null,
      });
    }
    saveState(state, job, { phase: 'done', reason: `loaded from export ${exportId}` });
  });
}

async function pollUntilFinished(input: BackfillInput, first: ExportJob): Promise<ExportJob> {
  const deadline = input.clock.now() + Math.min(input.options.export_timeout, input.budget.remainingMs());
  let job = first;
  let delay = FIRST_POLL_MS;
  while ((job.status === 'queued' || job.status === 'running') && input.clock.now() + delay <= deadline) {
    await input.clock.sleep(delay, input.budget.signal);
    delay = Math.min(MAX_POLL_MS, Math.round(delay * 1.6));
    job = await input.api.exports.get(job.id, { signal: input.budget.signal });
  }
  return job;
}

async function loadFile(
  input: BackfillInput,
  target: BackfillTarget,
  url: string,
): Promise<{ rows: number; deadLettered: number }> {
  const { resource, table } = target;
  const flow = deadLetterFlow(input.job, resource);
  const syncedAt = new Date(input.clock.now()).toISOString();
  let chunk: MirrorRow[] = [];
  let rows = 0;
  let deadLettered = 0;
  const flush = async () => {
    rows += await input.sink.upsertRows(table.spec, chunk);
    chunk = [];
  };
  const lines = ndjsonLines(url, {
    signal: input.budget.signal,
    label: `the ${resource.name} export file`,
    ...(input.dispatcher === undefined ? {} : { dispatcher: input.dispatcher }),
  });
  for await (const line of lines) {
    const key = `export:${resource.name}:line-${line.lineNumber}`;
    if ('error' in line) {
      input.state.deadLetters.add(flow, key, null, `export line is not JSON: ${line.error}`);
      deadLettered += 1;
      continue;
    }
    const parsed = resource.parser.parse(line.value);
    const record = (parsed.ok ? parsed.value : line.value) as ApiRecord;
    const id = typeof record['id'] === 'string' ? record['id'] : null;
    if (!parsed.ok || id === null) {
      const reason = parsed.ok ? 'record without id' : parsed.reason;
      input.state.deadLetters.add(flow, id ?? key, line.value, `quarantined export line: ${reason}`);
      deadLettered += 1;
      continue;
    }
    chunk.push(table.toRow(record, id, syncedAt));
    if (chunk.length >= input.options.export_chunk_rows) await flush();
  }
  await flush();
  return { rows, deadLettered };
}
