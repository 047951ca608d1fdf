/**
 * Every shipped example, on day one, against the sandbox: each journal-export and documents job of each file in
 * config/ runs once (a dry run, as `supply-sync sync <job> --dry-run` does it) with the example's own options and
 * mappings, and none ends with every document held back. A target the tests cannot reach (PostgreSQL, SQL
 * Server, SAP Business One, Priority) is swapped for one that can run here (a Hashavshevet folder for the books,
 * the demo ERP on SQLite for documents): what is checked is the example's options and mappings, not the database.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { openDemoErp, simulateErpActivity } from '../../connectors/sql/demo-erp/index.js';
import { systemClock } from '../../src/shared/clock.js';
import { runCli } from '../cli/run-cli.js';
import { mulberry32 } from '../flows/documents/supplier-harness.js';

const CONFIG_DIR = join(import.meta.dirname, '../../config');
const FLOWS = ['journal-export', 'documents'];
/** Connector types that run without a server. */
const RUNS_HERE = new Set(['hashavshevet', 'csv-accounting', 'demo-erp']);
/** Where a runnable connector's folders go, inside the run's own folder. */
const FOLDERS = { import_dir: 'books', out_dir: 'books', data_dir: 'erp', in_dir: 'drop' };
/**
 * Examples that hold back every sandbox document for the one reason their file names: mapping tables the user
 * must fill with their own codes (the comment above the tables says so). The run must name nothing else.
 */
const FILL_BEFORE_FIRST_RUN: Readonly<Record<string, { tables: readonly string[]; says: string }>> = {
  'accountant-journal.yaml': {
    tables: ['accounts', 'branches'],
    says: 'Add every account code and branch id your API lines use',
  },
};

interface ExampleJob {
  readonly file: string;
  readonly job: string;
  readonly flow: string;
}

type Block = Record<string, unknown>;

function examplesJobs(): ExampleJob[] {
  return readdirSync(CONFIG_DIR)
    .filter((file) => file.endsWith('.yaml'))
    .sort()
    .flatMap((file) => {
      const config = parse(readFileSync(join(CONFIG_DIR, file), 'utf8')) as { jobs: Record<string, Block> };
      return Object.entries(config.jobs)
        .filter(([, job]) => FLOWS.includes(String(job['flow'])))
        .map(([job, block]) => ({ file, job, flow: String(block['flow']) }));
    });
}

/** The stand-in for a connector the tests cannot reach, in a folder of the run's own. */
function runnableConnector(connector: Block, flow: string): Block {
  if (RUNS_HERE.has(String(connector['type']))) {
    const folders = Object.entries(FOLDERS).filter(([key]) => key in connector);
    return { ...connector, ...Object.fromEntries(folders) };
  }
  return flow === 'journal-export'
    ? { type: 'hashavshevet', import_dir: 'books' }
    : { type: 'demo-erp', data_dir: FOLDERS.data_dir, journal: false };
}

/** The example with only the job and its connector, on the embedded sandbox and a state file of its own. */
function exampleOnSandbox(example: ExampleJob, dir: string): string {
  const config = parse(readFileSync(join(CONFIG_DIR, example.file), 'utf8')) as Block & {
    jobs: Record<string, Block>;
    connectors: Record<string, Block>;
  };
  const block = config.jobs[example.job] ?? {};
  // A dry run's preview lands in the run's own folder, not the working folder.
  const job =
    example.flow === 'journal-export'
      ? {
          ...block,
          options: { ...(block['options'] as Block | undefined), preview_path: join(dir, 'preview.json') },
        }
      : block;
  const connectorName = String(job['connector']);
  const connector = runnableConnector(config.connectors[connectorName] ?? {}, example.flow);
  const onSandbox = {
    api: { sandbox: 'embedded' },
    state: { path: 'state.db' },
    log: { level: 'warn' },
    ...(config['timezone'] === undefined ? {} : { timezone: config['timezone'] }),
    connectors: { [connectorName]: connector },
    jobs: { [example.job]: job },
    ...(config['mappings'] === undefined ? {} : { mappings: config['mappings'] }),
  };
  const file = join(dir, example.file);
  writeFileSync(file, stringify(onSandbox));
  return file;
}

const root = mkdtempSync(join(tmpdir(), 'supply-sync-examples-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('the shipped examples against the sandbox', () => {
  const jobs = examplesJobs();

  it('include journal-export and documents jobs', () => {
    expect(new Set(jobs.map((job) => job.flow))).toEqual(new Set(FLOWS));
  });

  for (const example of jobs) {
    const fillFirst = FILL_BEFORE_FIRST_RUN[example.file];
    const outcome =
      fillFirst === undefined
        ? 'delivers and does not hold back every document'
        : `holds documents back only for mappings.${fillFirst.tables.join(' and ')}, which its file asks to fill`;
    it(`${example.file}: job ${example.job} (${example.flow}) ${outcome}`, async () => {
      const dir = mkdtempSync(join(root, `${example.job}-`));
      const config = exampleOnSandbox(example, dir);
      if (example.flow === 'documents') await erpIssuesDocuments(join(dir, FOLDERS.data_dir), 4);
      const { stdout, stderr } = await runCli(['sync', example.job, '--dry-run', '--config', config]);
      const said = `${stdout}\n${stderr}`;
      const line = new RegExp(`^${example.job}: dry run (\\w+) \\((.*)\\)`, 'm').exec(stdout);
      expect(line, said).not.toBeNull();
      const counts = countsOf(line?.[2] ?? '');
      const seen = (counts['delivered'] ?? 0) + (counts['held_back'] ?? 0);
      expect(seen, said).toBeGreaterThan(0);
      const fill = FILL_BEFORE_FIRST_RUN[example.file];
      if (fill === undefined) {
        expect(counts['delivered'], said).toBeGreaterThan(0);
        expect(line?.[1], said).toBe('ok');
        return;
      }
      // Every document held back, and only for values missing from the table the file asks the user to fill.
      const text = readFileSync(join(CONFIG_DIR, example.file), 'utf8');
      expect(text).toContain(fill.says);
      expect(stderr, said).toMatch(/delivered nothing: all \d+ documents held back: /);
      // The dry run lists every reason, one a line, under its count of them.
      const listed = stdout.split('\n').filter((text) => text.startsWith('  '));
      expect(stdout, said).toContain(
        `${example.job}: dry run: documents held back, for each reason (${listed.length}):`,
      );
      const tables = fill.tables.join('|');
      for (const reason of listed) {
        expect(reason).toMatch(
          new RegExp(`^ {2}(${tables}) value "[^"]+" has no entry in mappings\\.\\1 \\(\\d+ documents\\)$`),
        );
      }
      for (const table of fill.tables) expect(listed.join('\n')).toContain(`mappings.${table} (`);
    }, 60_000);
  }
});

/** The demo ERP in `dir` with `count` new invoices waiting to be sent. */
async function erpIssuesDocuments(dir: string, count: number): Promise<void> {
  const erp = await openDemoErp(dir);
  try {
    const issued = await simulateErpActivity(erp, {
      clock: systemClock,
      random: mulberry32(7),
      documents: count,
      confirmations: 0,
      catalogChanges: 0,
    });
    expect(issued.documents).toHaveLength(count);
  } finally {
    await erp.driver.close();
  }
}

/** "a=1 b=2" as numbers by name. */
function countsOf(text: string): Record<string, number> {
  return Object.fromEntries(
    text.split(/\s+/).map((pair) => {
      const [name = '', value = ''] = pair.split('=');
      return [name, Number(value)];
    }),
  );
}
