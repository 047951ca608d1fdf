/**
 * An office config: one file of shared settings with a `companies:` block, and a folder of one file per company
 * merged over it. Real files in a temporary folder; every problem must name the file a person has to change.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ConfigError,
  loadCompany,
  loadConfig,
  loadConfigSet,
  readAgain,
  type ConfigIssue,
  type OfficeConfig,
} from '../../src/config/index.js';
import { buildPluginRegistry } from '../../src/daemon/index.js';

const registry = buildPluginRegistry();
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'supply-sync-office-'));
  mkdirSync(join(dir, 'companies.d'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const OFFICE = `api:
  base_url: https://api.example.com/v2
  ca_file: certs/ca.pem
state:
  path: state/office.db
companies:
  dir: companies.d
connectors:
  books:
    type: hashavshevet
    long_references: sequence
jobs:
  journal:
    flow: journal-export
    connector: books
    schedule: '0 1 * * *'
  spare:
    flow: journal-export
    connector: books
    schedule: '0 3 * * *'
mappings:
  accounts:
    '6100': '61000'
    '2200': '22000'
`;

function write(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

function company(name: string, key: string, extra = ''): string {
  return write(
    `companies.d/${name}.yaml`,
    `api:\n  api_key: ${key}\nconnectors:\n  books:\n    import_dir: books/${name}\n${extra}`,
  );
}

function office(): OfficeConfig {
  const set = loadConfigSet(join(dir, 'office.yaml'), { registry, env: {} });
  if (set.kind !== 'office') throw new Error('expected an office');
  return set.office;
}

function issuesOf(load: () => unknown): readonly ConfigIssue[] {
  try {
    load();
  } catch (error) {
    if (error instanceof ConfigError) return error.issues;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('an office config', () => {
  it("merges each company's file over the office's settings, in name order", () => {
    write('office.yaml', OFFICE);
    company('beta', 'key-beta', "jobs:\n  journal:\n    schedule: '0 2 * * *'\n  spare: null\n");
    company('acme', 'key-acme', "mappings:\n  accounts:\n    '6100': '61999'\n    '7000': '70000'\n");
    const { companies } = office();
    expect([...companies.keys()]).toEqual(['acme', 'beta']);
    const acme = companies.get('acme')?.config;
    const beta = companies.get('beta')?.config;
    expect(acme?.api.api_key).toBe('key-acme');
    expect(beta?.api.api_key).toBe('key-beta');
    expect(acme?.api.base_url).toBe('https://api.example.com/v2');
    // A table merges entry by entry: the company's entry wins, the office's others stay.
    expect(acme?.mappings['accounts']).toEqual({ '6100': '61999', '2200': '22000', '7000': '70000' });
    expect(beta?.mappings['accounts']).toEqual({ '6100': '61000', '2200': '22000' });
    // A job's keys merge the same way; null removes the office's job for that company.
    expect(beta?.jobs['journal']?.schedule).toBe('0 2 * * *');
    expect(beta?.jobs['journal']?.flow).toBe('journal-export');
    expect(Object.keys(beta?.jobs ?? {})).toEqual(['journal']);
    expect(Object.keys(acme?.jobs ?? {})).toEqual(['journal', 'spare']);
    expect(companies.get('acme')?.company).toEqual({ name: 'acme', office: join(dir, 'office.yaml') });
  });

  it('gives every company a state file and control token of its own; paths start at the file that wrote them', () => {
    write('office.yaml', OFFICE);
    company('acme', 'a');
    company('beta', 'b', 'state:\n  path: ../beta-state/state.db\n');
    const { companies } = office();
    const acme = companies.get('acme');
    const beta = companies.get('beta');
    expect(acme?.config.state.path).toBe(join(dir, 'state/companies/acme/state.db'));
    expect(acme?.config.server.control?.local_token_file).toBe(
      join(dir, 'state/companies/acme/control-token'),
    );
    expect(beta?.config.state.path).toBe(join(dir, 'beta-state/state.db'));
    expect(beta?.config.server.control?.local_token_file).toBe(
      join(dir, 'state/companies/beta/control-token'),
    );
    // The office's own file paths start at the office file, a company's at its own file (its loaded.file).
    expect(acme?.config.api.ca_file).toBe(join(dir, 'certs/ca.pem'));
    expect(acme?.file).toBe(join(dir, 'companies.d/acme.yaml'));
  });

  it("names the company file, line and key of a company's mistake, and reports every company's", () => {
    write('office.yaml', OFFICE);
    company('acme', 'a', "jobs:\n  journal:\n    schedule: 'every night'\n");
    company('beta', 'b', 'server:\n  port: 9000\nmappings:\n  accounts: [1, 2]\n');
    const issues = issuesOf(() => office());
    const acmeFile = join(dir, 'companies.d/acme.yaml');
    const betaFile = join(dir, 'companies.d/beta.yaml');
    expect(issues).toContainEqual(
      expect.objectContaining({ file: acmeFile, line: 8, path: 'jobs.journal.schedule' }),
    );
    expect(issues).toContainEqual(
      expect.objectContaining({
        file: betaFile,
        line: 6,
        path: 'server',
        message: expect.stringContaining(`set once for the whole office, in ${join(dir, 'office.yaml')}`),
      }),
    );
    // The misplaced key does not hide the company's other mistakes.
    expect(issues).toContainEqual(
      expect.objectContaining({ file: betaFile, line: 9, path: 'mappings.accounts' }),
    );
  });

  it("tells a mistake in the office's part once, at the office file, with the companies it was found for", () => {
    write('office.yaml', OFFICE.replace("schedule: '0 3 * * *'", 'schedule: 42'));
    company('acme', 'a');
    company('beta', 'b', 'jobs:\n  spare: null\n');
    company('gamma', 'c');
    const issues = issuesOf(() => office());
    const found = issues.filter((issue) => issue.path === 'jobs.spare.schedule');
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ file: join(dir, 'office.yaml'), line: 20 });
    expect(found[0]?.message).toMatch(/\(found for company acme, gamma\)$/);
  });

  it('names the company file of a key the company must give (an API key with base_url)', () => {
    write('office.yaml', OFFICE);
    write('companies.d/acme.yaml', 'connectors:\n  books:\n    import_dir: books/acme\n');
    const issues = issuesOf(() => office());
    expect(issues).toContainEqual(
      expect.objectContaining({ file: join(dir, 'companies.d/acme.yaml'), path: 'api.api_key' }),
    );
  });

  it('refuses two companies on one state, and a company left on the office PostgreSQL database', () => {
    write('office.yaml', OFFICE);
    company('acme', 'a', 'state:\n  path: ../shared.db\n');
    company('beta', 'b', 'state:\n  path: ../shared.db\n');
    expect(issuesOf(() => office())).toContainEqual(
      expect.objectContaining({
        file: join(dir, 'companies.d/beta.yaml'),
        path: 'state.path',
        message: 'company acme uses the same state; every company needs its own',
      }),
    );
    rmSync(join(dir, 'companies.d/beta.yaml'));
    write('office.yaml', OFFICE.replace('  path: state/office.db', '  url: postgres://office@db/office'));
    company('acme', 'a');
    const [issue] = issuesOf(() => office());
    expect(issue).toMatchObject({ file: join(dir, 'companies.d/acme.yaml'), path: 'state.url' });
    expect(issue?.message).toContain('a database of its own');
    expect(issue?.message).not.toContain('postgres://');
  });

  it('says what to do about a missing or empty folder, bad file names and files it does not read', () => {
    write('office.yaml', OFFICE.replace('dir: companies.d', 'dir: clients'));
    expect(issuesOf(() => office())[0]?.message).toMatch(
      /cannot read the company folder .*clients \(ENOENT\): create it/,
    );
    write('office.yaml', OFFICE);
    expect(issuesOf(() => office())[0]?.message).toMatch(/holds no company file: add <company>\.yaml/);
    company('acme', 'a');
    write('companies.d/README.md', 'notes');
    write('companies.d/.acme.yaml.swp', '');
    expect(office().warnings).toEqual([
      `${join(dir, 'companies.d/README.md')}: not read (a company file is a .yaml or .yml file)`,
    ]);
    write('companies.d/acme corp.yaml', 'api:\n  api_key: x\n');
    expect(issuesOf(() => office())[0]).toMatchObject({
      file: join(dir, 'companies.d/acme corp.yaml'),
      message: expect.stringContaining('use letters, digits, - and _'),
    });
    rmSync(join(dir, 'companies.d/acme corp.yaml'));
    write('companies.d/acme.yml', 'api:\n  api_key: x\n');
    expect(issuesOf(() => office())[0]?.message).toBe('company "acme" has two files; keep one');
  });

  it('reads one company again without reading the others (a reload); a single config is read as before', () => {
    write('office.yaml', OFFICE);
    company('acme', 'a');
    const acme = office().companies.get('acme');
    company('beta', 'b', 'jobs: [broken\n');
    company('acme', 'a', "mappings:\n  accounts:\n    '9000': '90000'\n");
    const again = acme === undefined ? undefined : readAgain(acme, { registry, env: {} });
    expect(again?.config.mappings['accounts']?.['9000']).toBe('90000');
    expect(
      issuesOf(() => loadCompany(join(dir, 'office.yaml'), 'zeta', { registry, env: {} }))[0]?.message,
    ).toMatch(/no company "zeta": there is no .*zeta\.yaml \(companies: acme, beta\)/);
    // Loaded as one company's config, an office file says to choose a company.
    expect(issuesOf(() => loadConfig(join(dir, 'office.yaml'), { registry, env: {} }))[0]?.message).toContain(
      'choose one with --company NAME',
    );
    const single = write(
      'single.yaml',
      OFFICE.replace('companies:\n  dir: companies.d\n', '')
        .replace('base_url: https://api.example.com/v2', 'sandbox: embedded')
        .replace('long_references: sequence', 'long_references: sequence\n    import_dir: books'),
    );
    const set = loadConfigSet(single, { registry, env: {} });
    expect(set.kind).toBe('single');
  });
});

describe('the shipped office example', () => {
  it('validates with its two companies, each on its own state and books folder', () => {
    const set = loadConfigSet(join(import.meta.dirname, '../../config/office/office.yaml'), {
      registry,
      env: { CAFE_NORTH_KEY: 'svc_north', CAFE_SOUTH_KEY: 'svc_south' },
    });
    if (set.kind !== 'office') throw new Error('expected an office');
    const north = set.office.companies.get('cafe-north')?.config;
    const south = set.office.companies.get('cafe-south')?.config;
    expect(north?.api.api_key).toBe('svc_north');
    expect(south?.jobs['journal']?.schedule).toBe('30 3 * * *');
    expect(north?.jobs['journal']?.schedule).toBe('30 2 * * *');
    expect(north?.state.path).toMatch(/state\/office\/companies\/cafe-north\/state\.db$/);
    expect(north?.connectors['books']?.['import_dir']).not.toBe(south?.connectors['books']?.['import_dir']);
    expect(set.office.warnings).toEqual([]);
  });
});
