/**
 * The buyer daemon: the nightly journal export into CSV import files. Work appears as journal lines the buyer's
 * accountant approves (sandbox action, which also sends journal_lines.approved_for_export to the daemon). Each
 * approved line must land in exactly one import file and be marked exported exactly once.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { formatMoney, parseMoney } from '../../../src/shared/decimal.js';
import { ExpenseDrops, EXPENSES_CONFIG } from './buyer-expenses.js';
import type { CrashScenario, ScenarioCheck, ScenarioSession } from './scenario.js';
import type { CrashWorld } from './world.js';

interface SandboxLine {
  id: string;
  document_id: string;
  status: string;
  export_batch_id: string | null;
}
interface SandboxBatch {
  id: string;
  line_count: number;
}

const OUTPUT_DIR = 'books';
const MIRROR_FILE = 'bi.db';
const MIRROR_TABLE = 'mirror_journal_lines';

export interface BuyerScenarioOptions {
  /** The journal export's max_lines_per_batch (more, smaller batches: more API calls per run). */
  maxLinesPerBatch?: number;
  /** Adds a `mirror` job copying the API's journal lines into a SQLite table, checked against the API. */
  mirror?: boolean;
  /** Adds an `expenses` job reading a csv-expenses drop folder the back office keeps filling (buyer-expenses.ts). */
  expenses?: boolean;
}

/** The buyer daemon's scenario; `buyerScenario` is the journal export alone with default batches. */
export function buyerScenarioWith(options: BuyerScenarioOptions = {}): CrashScenario {
  const mirror = options.mirror === true;
  const expenses = options.expenses === true;
  const jobs = ['journal-export', ...(mirror ? ['mirror'] : []), ...(expenses ? ['expenses'] : [])];
  return {
    name: mirror ? 'buyer-mirror' : 'buyer',
    side: 'buyer',
    jobs,
    requiredFlows: jobs,
    // An export that finished under the kills (and, with the mirror, a mirrored line; with expenses, one sent).
    minimumActivity: {
      linesExported: 1,
      ...(mirror ? { mirroredLines: 1 } : {}),
      ...(expenses ? { expensesSent: 1 } : {}),
    },
    events: ['journal_lines.approved_for_export'],
    writeCounts: {
      'journal-export': ['lines_exported', 'batches_written', 'batches_resumed'],
      ...(mirror ? { mirror: ['rows_written'] } : {}),
      ...(expenses ? { expenses: ['expenses_created', 'files_uploaded'] } : {}),
    },
    configBody: () => buyerConfig(options),
    open: async (world) => openBuyerSession(world, mirror, expenses ? new ExpenseDrops(world) : null),
  };
}

export const buyerScenario: CrashScenario = buyerScenarioWith({ expenses: true });

function buyerConfig(options: BuyerScenarioOptions): string {
  const lines = [
    'connectors:',
    '  books:',
    '    type: csv',
    `    output_dir: ${OUTPUT_DIR}`,
    "    separator: ';'",
    '    columns:',
    '      - { header: batch, field: batch_key }',
    '      - { header: line, field: line_number }',
    '      - { header: sources, field: source_ids }',
    '      - { header: account, field: account }',
    '      - { header: debit, field: debit }',
    '      - { header: credit, field: credit }',
  ];
  if (options.mirror === true) {
    lines.push(
      '  bi:',
      '    type: sql',
      `    connection: { driver: sqlite, file: ${MIRROR_FILE} }`,
      '    mirror: { table_prefix: mirror_ }',
    );
  }
  if (options.expenses === true) lines.push(...EXPENSES_CONFIG.connector);
  lines.push(
    'jobs:',
    '  journal-export:',
    '    flow: journal-export',
    '    connector: books',
    "    schedule: '* * * * *'",
  );
  if (options.maxLinesPerBatch !== undefined) {
    lines.push('    options:', `      max_lines_per_batch: ${options.maxLinesPerBatch}`);
  }
  if (options.mirror === true) {
    lines.push(
      '  mirror:',
      '    flow: mirror',
      '    connector: bi',
      "    schedule: '* * * * *'",
      '    options:',
      '      resources: [journal_lines]',
      '      page_size: 20',
    );
  }
  if (options.expenses === true) lines.push(...EXPENSES_CONFIG.job, ...EXPENSES_CONFIG.mappings);
  return [...lines, ''].join('\n');
}

/** Data rows (cells) per import file (folder and its done/ subfolder). */
function importRows(dir: string): Map<string, string[][]> {
  const files = new Map<string, string[][]>();
  for (const folder of [dir, path.join(dir, 'done')]) {
    if (!existsSync(folder)) continue;
    for (const name of readdirSync(folder).filter((n) => n.endsWith('.csv'))) {
      const rows = readFileSync(path.join(folder, name), 'utf8').split(/\r?\n/).slice(1);
      files.set(
        path.join(path.basename(folder), name),
        rows.filter((row) => row !== '').map((row) => row.split(';')),
      );
    }
  }
  return files;
}

/** Source line ids per import file. */
function linesInFiles(files: ReadonlyMap<string, string[][]>): Map<string, string[]> {
  return new Map(
    [...files].map(([file, rows]) => [
      file,
      rows.flatMap((cells) => (cells[2] ?? '').split(' ').filter(Boolean)),
    ]),
  );
}

/**
 * Debit and credit booked per account over all files: the same work gives the same totals however the daemon
 * split it into batches (so a faulted run can be compared with a clean one).
 */
function bookedByAccount(files: ReadonlyMap<string, string[][]>): Record<string, string> {
  const totals = new Map<string, { debit: bigint; credit: bigint }>();
  for (const rows of files.values()) {
    for (const cells of rows) {
      const account = cells[3] ?? '';
      const total = totals.get(account) ?? { debit: 0n, credit: 0n };
      total.debit += parseMoney(cells[4] || '0.00');
      total.credit += parseMoney(cells[5] || '0.00');
      totals.set(account, total);
    }
  }
  return Object.fromEntries(
    [...totals]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([account, t]) => [account, `${formatMoney(t.debit)}/${formatMoney(t.credit)}`]),
  );
}

/** Documents the daemon set aside (unbalanced, unmapped, refused): their lines are not expected in the books. */
function deadLetteredDocuments(stateFile: string): Set<string> {
  if (!existsSync(stateFile)) return new Set();
  const db = new Database(stateFile, { readonly: true, fileMustExist: true });
  try {
    const rows = db
      .prepare("SELECT record_key FROM dead_letters WHERE status IN ('open', 'retrying')")
      .all() as { record_key: string }[];
    return new Set(rows.map((row) => row.record_key.replace(/^(document|line):/, '')));
  } finally {
    db.close();
  }
}

/** Batch plans the daemon saved and has not finished: work it still owes, whatever the API shows. */
function unfinishedPlans(stateFile: string): string[] {
  if (!existsSync(stateFile)) return [];
  const db = new Database(stateFile, { readonly: true, fileMustExist: true });
  try {
    const rows = db
      .prepare("SELECT key FROM kv WHERE namespace LIKE 'journal-export:%:plans' ORDER BY key")
      .all() as { key: string }[];
    return rows.map((row) => row.key);
  } finally {
    db.close();
  }
}

/** The mirror table's rows: id -> status and updated_at as the last mirrored version had them. */
function mirroredLines(file: string): Map<string, { status: unknown; updatedAt: unknown }> {
  const rows = new Map<string, { status: unknown; updatedAt: unknown }>();
  if (!existsSync(file)) return rows;
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const table = db
      .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?")
      .get(MIRROR_TABLE);
    if (table === undefined) return rows;
    const all = db.prepare(`SELECT id, updated_at, record FROM ${MIRROR_TABLE}`).all() as {
      id: string;
      updated_at: unknown;
      record: string;
    }[];
    for (const row of all) {
      const record = JSON.parse(row.record) as { status?: unknown };
      rows.set(row.id, { status: record.status, updatedAt: row.updated_at });
    }
    return rows;
  } finally {
    db.close();
  }
}

async function openBuyerSession(
  world: CrashWorld,
  mirror: boolean,
  expenses: ExpenseDrops | null,
): Promise<ScenarioSession> {
  const outputDir = path.join(world.dir, OUTPUT_DIR);
  const stateFile = path.join(world.dir, 'state', 'supply-sync.db');
  const mirrorFile = path.join(world.dir, MIRROR_FILE);

  const readout = async (): Promise<{ lines: SandboxLine[]; batches: SandboxBatch[] }> => {
    const state = await world.sandbox.control.state();
    return {
      lines: Object.values(state['journalLines'] as Record<string, SandboxLine>),
      batches: Object.values(state['exportBatches'] as Record<string, SandboxBatch>),
    };
  };

  // Lines the seed data already shows as exported (by someone else, before this scenario).
  const exportedBefore = new Set(
    (await readout()).lines.filter((l) => l.status === 'exported').map((l) => l.id),
  );

  /** Where the mirror table differs from the API's journal line list (every line once, its latest version). */
  async function mirrorDifferences(): Promise<string[]> {
    if (!mirror) return [];
    const mirrored = mirroredLines(mirrorFile);
    const out: string[] = [];
    const listed = new Set<string>();
    for await (const line of world.api.accounting.journalLines().items()) {
      listed.add(line.id);
      const row = mirrored.get(line.id);
      if (row === undefined) out.push(`line ${line.id} not in the mirror`);
      else if (row.status !== line.status || row.updatedAt !== line.updated_at)
        out.push(
          `line ${line.id} mirrored as ${String(row.status)} at ${String(row.updatedAt)}, ` +
            `API has ${line.status} at ${line.updated_at}`,
        );
    }
    for (const id of mirrored.keys()) if (!listed.has(id)) out.push(`mirror row ${id} is not in the API`);
    return out;
  }

  async function missing(): Promise<string[]> {
    const { lines } = await readout();
    const parked = deadLetteredDocuments(stateFile);
    return [
      ...lines
        .filter((line) => line.status === 'approved_for_export')
        .filter((line) => !parked.has(line.document_id) && !parked.has(line.id))
        .map((line) => `line ${line.id} approved but not exported`),
      ...unfinishedPlans(stateFile).map((key) => `batch plan ${key} not finished`),
      ...(await mirrorDifferences()),
      ...((await expenses?.missing()) ?? []),
    ];
  }

  async function check(): Promise<ScenarioCheck> {
    const { lines, batches } = await readout();
    const rows = importRows(outputDir);
    const files = linesInFiles(rows);
    const filesOf = new Map<string, string[]>();
    for (const [file, ids] of files)
      for (const id of ids) filesOf.set(id, [...(filesOf.get(id) ?? []), file]);
    const violations: string[] = [];
    const byId = new Map(lines.map((line) => [line.id, line]));
    const exported = lines.filter((line) => line.status === 'exported');
    const exportedHere = exported.filter((line) => !exportedBefore.has(line.id));
    for (const line of exportedHere) {
      const where = filesOf.get(line.id) ?? [];
      if (where.length !== 1)
        violations.push(`line ${line.id} is in ${where.length} import files: ${where.join(', ')}`);
    }
    for (const [id, where] of filesOf) {
      const line = byId.get(id);
      if (line === undefined) violations.push(`import file row for unknown line ${id}`);
      else if (line.status !== 'exported')
        violations.push(`line ${id} is in ${where.join(', ')} but not marked exported`);
    }
    // Exported once: every batch's count matches the lines that carry its id (a second export would be refused
    // by the API, or show up as a batch whose lines belong to another).
    for (const batch of batches) {
      const carried = lines.filter((line) => line.export_batch_id === batch.id).length;
      if (carried !== batch.line_count)
        violations.push(`export batch ${batch.id}: ${batch.line_count} lines, ${carried} carry it`);
    }
    const mirrorOff = await mirrorDifferences();
    violations.push(...mirrorOff.slice(0, 20));
    violations.push(...((await expenses?.violations()) ?? []).slice(0, 20));
    const mirrorSummary = mirror
      ? { mirroredLines: mirroredLines(mirrorFile).size, mirrorDifferences: mirrorOff.length }
      : {};
    return {
      violations,
      summary: {
        ...mirrorSummary,
        linesExported: exportedHere.length,
        linesInFiles: filesOf.size,
        bookedByAccount: bookedByAccount(rows),
        // Depends on how runs happened to batch the lines; not part of a compared end state.
        importFiles: files.size,
        stillApproved: lines.filter((line) => line.status === 'approved_for_export').length,
        ...((await expenses?.progress()) ?? {}),
      },
    };
  }

  return {
    activity: async (prng, moment) => {
      if (moment === 'daemon-ready' && prng.next() < 0.3) return;
      await world.sandbox.control.action('approve_journal_lines', { count: prng.int(3, 9) });
      await expenses?.drop(prng);
    },
    settled: async () => (await missing()).length === 0,
    pending: async () => (await missing()).slice(0, 10).join('; '),
    progress: async () => {
      const here = (await readout()).lines.filter((line) => !exportedBefore.has(line.id));
      return {
        linesApproved: here.filter(
          (line) => line.status === 'approved_for_export' || line.status === 'exported',
        ).length,
        linesExported: here.filter((line) => line.status === 'exported').length,
        ...(mirror ? { mirroredLines: mirroredLines(mirrorFile).size } : {}),
        ...((await expenses?.progress()) ?? {}),
      };
    },
    check,
    close: async () => undefined,
  };
}
