/**
 * The buyer daemon: the nightly journal export into CSV import files. Work appears as journal lines the buyer's
 * accountant approves (sandbox action, which also sends journal_lines.approved_for_export to the daemon). Each
 * approved line must land in exactly one import file and be marked exported exactly once.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
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

export const buyerScenario: CrashScenario = {
  name: 'buyer',
  side: 'buyer',
  jobs: ['journal-export'],
  requiredFlows: ['journal-export'],
  events: ['journal_lines.approved_for_export'],
  writeCounts: { 'journal-export': ['lines_exported', 'batches_written', 'batches_resumed'] },
  configBody: () =>
    [
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
      'jobs:',
      '  journal-export:',
      '    flow: journal-export',
      '    connector: books',
      "    schedule: '* * * * *'",
      '',
    ].join('\n'),
  open: async (world) => openBuyerSession(world),
};

/** Source line ids per import file (folder and its done/ subfolder). */
function linesInFiles(dir: string): Map<string, string[]> {
  const files = new Map<string, string[]>();
  for (const folder of [dir, path.join(dir, 'done')]) {
    if (!existsSync(folder)) continue;
    for (const name of readdirSync(folder).filter((n) => n.endsWith('.csv'))) {
      const rows = readFileSync(path.join(folder, name), 'utf8').split(/\r?\n/).slice(1);
      const ids = rows.flatMap((row) => (row.split(';')[2] ?? '').split(' ').filter(Boolean));
      files.set(path.join(path.basename(folder), name), ids);
    }
  }
  return files;
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

async function openBuyerSession(world: CrashWorld): Promise<ScenarioSession> {
  const outputDir = path.join(world.dir, OUTPUT_DIR);
  const stateFile = path.join(world.dir, 'state', 'supply-sync.db');

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

  async function missing(): Promise<string[]> {
    const { lines } = await readout();
    const parked = deadLetteredDocuments(stateFile);
    return lines
      .filter((line) => line.status === 'approved_for_export')
      .filter((line) => !parked.has(line.document_id) && !parked.has(line.id))
      .map((line) => `line ${line.id} approved but not exported`);
  }

  async function check(): Promise<ScenarioCheck> {
    const { lines, batches } = await readout();
    const files = linesInFiles(outputDir);
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
    return {
      violations,
      summary: {
        linesExported: exportedHere.length,
        linesInFiles: filesOf.size,
        importFiles: files.size,
        stillApproved: lines.filter((line) => line.status === 'approved_for_export').length,
      },
    };
  }

  return {
    activity: async (prng, moment) => {
      if (moment === 'daemon-ready' && prng.next() < 0.3) return;
      await world.sandbox.control.action('approve_journal_lines', { count: prng.int(3, 9) });
    },
    settled: async () => (await missing()).length === 0,
    pending: async () => (await missing()).slice(0, 10).join('; '),
    check,
    close: async () => undefined,
  };
}
