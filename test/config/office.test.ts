/**
 * An office config: one file of shared settings with a `companies:` block, and a folder of one file per company
 * merged over it. Real files in a temporary folder; every problem must name the file a person has to change.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  apiKeySettingName,
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
    `api:\n  api_key: svc_test_${key}\nconnectors:\n  books:\n    import_dir: books/${name}\n${extra}`,
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
    expect(acme?.api.api_key).toBe('svc_test_key-acme');
    expect(beta?.api.api_key).toBe('svc_test_key-beta');
    expect(acme?.api.base_url).toBe('https://api.example.com/v2');
    // A table merges entry by entry: the company's entry wins, the office's others stay.
    expect(acme?.mappings['accounts']).toEqual({ '6100': '61999', '2200': '22000', '7000': '70000' });
    expect(beta?.mappings['accounts']).toEqual({ '6100': '61000', '2200': '22000' });
    // A job's keys merge the same way; null removes the office's job for that company.
    expect(beta?.jobs['journal']?.schedule).toBe('0 2 * * *');
    expect(beta?.jobs['journal']?.flow).toBe('journal-export');
    expect(Object.keys(beta?.jobs ?? {})).toEqual(['journal']);
    expect(Object.keys(acme?.jobs ?? {})).toEqual(['journal', 'spare']);
    expect(companies.get('acme')?.company).toEqual({
      name: 'acme',
      office: join(dir, 'office.yaml'),
      officeState: join(dir, 'state', 'office.db'),
      // No state.url in the office file: one process runs the companies.
      shared: false,
    });
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
    // A misspelt key is not sent to the office file.
    company('gamma', 'c', 'conectors:\n  books:\n    import_dir: x\n');
    expect(issuesOf(() => office())).toContainEqual(
      expect.objectContaining({
        file: join(dir, 'companies.d/gamma.yaml'),
        path: 'conectors',
        message: expect.stringMatching(/^unknown key "conectors" \(did you mean "connectors"\?\)/),
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

  it("reads the office report and names a channel the office file's notifications do not define", () => {
    const notifications =
      'notifications:\n  channels:\n    office:\n      type: email\n      host: smtp.example.com\n' +
      '      from: a@example.com\n      to: [partners@example.com]\n';
    const report = (channel: string) =>
      OFFICE.replace(
        '  dir: companies.d\n',
        `  dir: companies.d\n  report:\n    at: "07:00"\n    channels: [${channel}]\n`,
      );
    write('office.yaml', report('office') + notifications);
    company('acme', 'a');
    expect(office().report).toMatchObject({ at: '07:00', channels: ['office'] });
    expect(office().report?.notifications.channels['office']).toMatchObject({ to: ['partners@example.com'] });

    write('office.yaml', report('partners') + notifications);
    expect(issuesOf(office)).toEqual([
      expect.objectContaining({
        file: join(dir, 'office.yaml'),
        path: 'companies.report.channels[0]',
        message: expect.stringContaining(
          'no channel named "partners" under notifications.channels of this file (defined: office)',
        ),
      }),
    ]);
  });

  it('refuses an office state.url that is not a PostgreSQL URL, naming an unset variable', () => {
    write(
      'office.yaml',
      OFFICE.replace('  path: state/office.db', '  path: state/office.db\n  url: ${OFFICE_DB}'),
    );
    company('acme', 'a', 'state:\n  url: postgres://acme@db/acme\n');
    expect(issuesOf(office)).toEqual([
      expect.objectContaining({
        file: join(dir, 'office.yaml'),
        path: 'state.url',
        message: expect.stringContaining('(the environment variable it names is not set)'),
      }),
    ]);
  });

  it('names the company file of a key the company must give (an API key with base_url)', () => {
    write('office.yaml', OFFICE);
    write('companies.d/acme.yaml', 'connectors:\n  books:\n    import_dir: books/acme\n');
    const issues = issuesOf(() => office());
    expect(issues).toContainEqual(
      expect.objectContaining({ file: join(dir, 'companies.d/acme.yaml'), path: 'api.api_key' }),
    );
  });

  it('refuses two companies on one state, told at the file that set it, and a company left on the office database', () => {
    write('office.yaml', OFFICE);
    // acme points at beta's default state file; beta sets nothing: the mistake is acme's.
    company('acme', 'a', 'state:\n  path: ../state/companies/beta/state.db\n');
    company('beta', 'b');
    const shared = issuesOf(() => office());
    expect(shared).toEqual([
      {
        file: join(dir, 'companies.d/acme.yaml'),
        line: 7,
        column: 9,
        path: 'state.path',
        message:
          'the same state as company beta; every company needs its own (leave state out for the default)',
      },
    ]);
    rmSync(join(dir, 'companies.d/beta.yaml'));
    write(
      'office.yaml',
      OFFICE.replace('  path: state/office.db', '  url: postgres://office:S3cret-pw@db/office'),
    );
    company('acme', 'a');
    let error: unknown;
    try {
      office();
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const [issue] = (error as ConfigError).issues;
    expect(issue).toMatchObject({ file: join(dir, 'companies.d/acme.yaml'), path: 'state.url' });
    expect(issue?.message).toContain('a database of its own');
    expect((error as ConfigError).message).not.toContain('S3cret-pw');
    // A company may keep its state in a SQLite file of its own instead: `url: null` removes the office's.
    company('acme', 'a', 'state:\n  url: null\n');
    expect(office().companies.get('acme')?.config.state).toMatchObject({
      path: join(dir, 'state/companies/acme/state.db'),
    });
    expect(office().companies.get('acme')?.config.state.url).toBeUndefined();
  });

  it('reports a broken office file as it is when a company is asked for, and reads linked company files', () => {
    write('office.yaml', OFFICE);
    company('acme', 'a');
    write(
      'available.yaml',
      'api:\n  api_key: svc_test_linked\nconnectors:\n  books:\n    import_dir: books/linked\n',
    );
    symlinkSync(join(dir, 'available.yaml'), join(dir, 'companies.d/linked.yaml'));
    expect(office().companies.get('linked')?.config.api.api_key).toBe('svc_test_linked');
    expect(office().warnings).toEqual([]);
    write('office.yaml', `${OFFICE}jobs: [oops\n`);
    const [issue] = issuesOf(() => loadCompany(join(dir, 'office.yaml'), 'acme', { registry, env: {} }));
    expect(issue?.message).toMatch(/^YAML: /);
  });

  it('does not hold a company to an office value it replaces, and ignores a null with nothing to remove', () => {
    write('office.yaml', OFFICE.replace('  ca_file: certs/ca.pem', '  api_key: ${OFFICE_KEY}'));
    company('acme', 'a', "notifications: null\nmappings:\n  local:\n    'x': null\n    'y': '1'\n");
    expect(office().companies.get('acme')?.config.api.api_key).toBe('svc_test_a');
    expect(office().companies.get('acme')?.config.mappings['local']).toEqual({ y: '1' });
    write('companies.d/beta.yaml', 'connectors:\n  books:\n    import_dir: books/beta\n');
    expect(issuesOf(() => office())).toContainEqual(
      expect.objectContaining({
        file: join(dir, 'office.yaml'),
        path: 'api.api_key',
        message: expect.stringMatching(/OFFICE_KEY is not set .*\(found for company beta\)$/),
      }),
    );
  });

  it('names the API key setting as each company wrote it, in the file that sets it', () => {
    write('office.yaml', OFFICE.replace('  ca_file: certs/ca.pem', '  api_key_file: office.key'));
    write('office.key', 'svc_test_office\n');
    write('companies.d/north.key', 'svc_test_north\n');
    write(
      'companies.d/north.yaml',
      'api:\n  api_key_file: north.key\nconnectors:\n  books:\n    import_dir: n\n',
    );
    company('south', 'key-south');
    write('companies.d/west.yaml', 'connectors:\n  books:\n    import_dir: w\n');
    const { companies } = office();
    const named = (name: string) => {
      const loaded = companies.get(name);
      if (loaded === undefined) throw new Error(`no company ${name}`);
      return apiKeySettingName(loaded);
    };
    expect(named('north')).toBe(`api.api_key_file in ${join(dir, 'companies.d', 'north.yaml')}`);
    // The company's own api_key replaces the office's file: the office file's key is not the one to change.
    expect(named('south')).toBe(`api.api_key in ${join(dir, 'companies.d', 'south.yaml')}`);
    expect(named('west')).toBe(`api.api_key_file in ${join(dir, 'office.yaml')}`);
    write('single.yaml', 'api:\n  base_url: https://api.example.com/v2\n  api_key_file: office.key\n');
    expect(apiKeySettingName(loadConfig(join(dir, 'single.yaml'), { registry, env: {} }))).toBe(
      'api.api_key_file',
    );
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
    write('companies.d/acme corp.yaml', 'api:\n  api_key: svc_test_x\n');
    expect(issuesOf(() => office())[0]).toMatchObject({
      file: join(dir, 'companies.d/acme corp.yaml'),
      message: expect.stringContaining('use letters, digits, - and _'),
    });
    rmSync(join(dir, 'companies.d/acme corp.yaml'));
    write('companies.d/acme.yml', 'api:\n  api_key: svc_test_x\n');
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
      env: { CAFE_NORTH_KEY: 'svc_test_north', CAFE_SOUTH_KEY: 'svc_test_south' },
    });
    if (set.kind !== 'office') throw new Error('expected an office');
    const north = set.office.companies.get('cafe-north')?.config;
    const south = set.office.companies.get('cafe-south')?.config;
    expect(north?.api.api_key).toBe('svc_test_north');
    expect(south?.jobs['journal']?.schedule).toBe('30 3 * * *');
    expect(north?.jobs['journal']?.schedule).toBe('30 2 * * *');
    expect(north?.state.path).toMatch(/state\/office\/companies\/cafe-north\/state\.db$/);
    expect(north?.connectors['books']?.['import_dir']).not.toBe(south?.connectors['books']?.['import_dir']);
    expect(set.office.warnings).toEqual([]);
  });
});

describe("a company daemon's config reload", () => {
  it("reads the office and the company's file again: new mappings apply, other changes name both files", async () => {
    const { planReload } = await import('../../src/daemon/control/config-reload.js');
    const { MappingsHolder } = await import('../../src/daemon/jobs/mappings.js');
    write('office.yaml', OFFICE);
    company('acme', 'a');
    const loaded = office().companies.get('acme');
    if (loaded === undefined) throw new Error('expected acme');
    const mappings = new MappingsHolder(loaded.config.mappings as never);
    // A new entry in the office's table reaches the company.
    write('office.yaml', OFFICE.replace("'2200': '22000'", "'2200': '22000'\n    '3300': '33000'"));
    const planned = planReload({ loaded, mappings, env: {} });
    expect(planned.result.changed).toEqual(['accounts']);
    // A change only a restart applies is refused naming the office file and the company's.
    write('office.yaml', OFFICE.replace("schedule: '0 1 * * *'", "schedule: '0 4 * * *'"));
    expect(() => planReload({ loaded, mappings, env: {} })).toThrow(
      `${join(dir, 'office.yaml')} with ${join(dir, 'companies.d/acme.yaml')}: jobs.journal.schedule changed`,
    );
  });
});
