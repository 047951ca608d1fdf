/**
 * Small unpaged reference lists (purchase types, expense categories and accounts, account mappings): read whole
 * on every run and compared with the last copy kept in the state; changed rows are upserted, and rows that left
 * the list are kept in the table with deleted_at set. The sink is written before the state, so a crash in between
 * repeats idempotent upserts on the next run.
 */
import type { ApiClient } from '../../client/index.js';
import type { MirrorRow, MirrorSink } from '../../connector-contract/index.js';
import { canonicalJson, errorMessage } from '../../engine/index.js';
import type { Clock } from '../../shared/clock.js';
import type { StateStore } from '../../state/index.js';
import { deadLetterFlow } from './pull-stream.js';
import type { ApiRecord, ListResource } from './resources.js';
import type { MirrorTable } from './tables.js';

interface KeptRow {
  record: ApiRecord;
  deletedAt: string | null;
}

export interface ListRefreshResult {
  fetched: number;
  written: number;
  deleted: number;
  deadLettered: number;
}

function isKeptRow(value: unknown): value is KeptRow {
  return typeof value === 'object' && value !== null && 'record' in value && 'deletedAt' in value;
}

export async function refreshList(input: {
  job: string;
  api: ApiClient;
  sink: MirrorSink;
  state: StateStore;
  clock: Clock;
  signal: AbortSignal;
  resource: ListResource;
  table: MirrorTable;
}): Promise<ListRefreshResult> {
  const { resource, table, state } = input;
  const namespace = `mirror-rows:${input.job}:${resource.name}`;
  const flow = deadLetterFlow(input.job, resource);
  const list = await resource.fetchAll(input.api, input.signal);
  const now = new Date(input.clock.now()).toISOString();

  const current = new Map<string, ApiRecord>();
  for (const record of list.items) current.set(resource.keyOf(record), record);
  const rows: MirrorRow[] = [];
  const keep: [string, KeptRow][] = [];
  for (const [key, record] of current) {
    const kept = state.kv.get(namespace, key);
    if (isKeptRow(kept) && kept.deletedAt === null && canonicalJson(kept.record) === canonicalJson(record))
      continue;
    rows.push(table.toRow(record, key, now));
    keep.push([key, { record, deletedAt: null }]);
  }
  let deleted = 0;
  for (const key of state.kv.keys(namespace)) {
    if (current.has(key)) continue;
    const kept = state.kv.get(namespace, key);
    if (!isKeptRow(kept) || kept.deletedAt !== null) continue;
    // The API lists have no deleted_at of their own: the mirror records when the row left the list.
    rows.push({ ...table.toRow(kept.record, key, now), deleted_at: now });
    keep.push([key, { record: kept.record, deletedAt: now }]);
    deleted += 1;
  }

  const written = await input.sink.upsertRows(table.spec, rows);
  state.transaction(() => {
    for (const [key, row] of keep) {
      state.kv.set(namespace, key, row);
      state.deadLetters.resolve(flow, key);
    }
    for (const bad of list.quarantined) {
      const raw = typeof bad.raw === 'object' && bad.raw !== null ? (bad.raw as ApiRecord) : {};
      let key: string;
      try {
        key = resource.keyOf(raw);
      } catch (error) {
        key = `invalid:${errorMessage(error)}`;
      }
      state.deadLetters.add(flow, key || 'invalid', bad.raw, `quarantined by the API client: ${bad.reason}`);
    }
  });
  return { fetched: list.items.length, written, deleted, deadLettered: list.quarantined.length };
}
