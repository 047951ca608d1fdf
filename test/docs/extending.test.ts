/**
 * The worked example of docs/extending.md, compiled with the rest of the project and run as the document
 * describes: its connector type and flow added to the built-in ones, the document's config that uses both, one
 * run against the sandbox over HTTP.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient, type ApiClient } from '../../src/client/index.js';
import { loadConfig } from '../../src/config/index.js';
import { buildPluginRegistry, builtinPlugins, runJobOnce } from '../../src/daemon/index.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { customerFileConnectorDefinition } from './extending/customer-file-connector.js';
import { unlinkedCustomersFlow } from './extending/unlinked-customers-flow.js';
import { fencedBlocks } from './markdown.js';

/** The one YAML block of docs/extending.md: the config that uses the new connector type and flow. */
function documentedConfig(): string {
  const doc = readFileSync(new URL('../../docs/extending.md', import.meta.url), 'utf8');
  const blocks = fencedBlocks(doc).filter((block) => block.lang === 'yaml');
  expect(blocks, 'docs/extending.md has one yaml block, the worked example config').toHaveLength(1);
  return blocks[0]?.code ?? '';
}

type Sandbox = Awaited<ReturnType<typeof startSandbox>>;
let sandbox: Sandbox;
let api: ApiClient;
let dir: string;

beforeAll(async () => {
  sandbox = await startSandbox();
  api = createApiClient({ baseUrl: sandbox.baseUrl, apiKey: sandbox.keys.supplier });
  dir = await mkdtemp(join(tmpdir(), 'supply-sync-extending-'));
});

afterAll(async () => {
  await api?.close();
  await sandbox?.close();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

describe('docs/extending.md worked example', () => {
  it('registers a connector type and a flow, validates a config using them and runs the job', async () => {
    const linked: string[] = [];
    for await (const buyer of api.supplierBuyers.list().items()) {
      if (buyer.status === 'active' && buyer.customer_number) linked.push(buyer.customer_number);
    }
    expect(linked.length).toBeGreaterThan(0);
    const customers = [
      ...linked.map((number) => ({ customer_number: number, name: `Linked ${number}`, email: null })),
      { customer_number: 'C-NOT-LINKED-1', name: 'New customer', email: 'buyer@example.com' },
      { customer_number: 'C-NOT-LINKED-2', name: 'Another customer', email: null },
    ];
    await writeFile(join(dir, 'customers.json'), JSON.stringify(customers));
    const configFile = join(dir, 'supply-sync.yaml');
    // The document's config as it stands, given the sandbox as its API.
    await writeFile(
      configFile,
      ['api:', `  base_url: ${sandbox.baseUrl}`, '  api_key: ${SUPPLY_API_KEY}', documentedConfig(), ''].join(
        '\n',
      ),
    );

    // What the one registration line each in src/daemon/plugins/builtin-plugins.ts does: join the built-in plugins.
    const registry = buildPluginRegistry([
      ...builtinPlugins(),
      customerFileConnectorDefinition,
      unlinkedCustomersFlow,
    ]);
    const loaded = loadConfig(configFile, {
      registry,
      env: { SUPPLY_API_KEY: sandbox.keys.supplier },
    });
    expect(loaded.warnings).toEqual([]);

    const result = await runJobOnce({ loaded, registry, job: 'unlinked' });
    expect(result).toMatchObject({ outcome: 'ok', counts: { customers: customers.length, unlinked: 2 } });
  });

  it('rejects an unknown option of the new flow, naming the file and the key', async () => {
    const registry = buildPluginRegistry([
      ...builtinPlugins(),
      customerFileConnectorDefinition,
      unlinkedCustomersFlow,
    ]);
    const text = [
      'api: { sandbox: embedded }',
      'connectors: { erp: { type: customer-file, file: customers.json } }',
      'jobs: { unlinked: { flow: unlinked-customers, connector: erp, options: { include_inactiv: true } } }',
    ].join('\n');
    expect(() => loadConfig('/virtual/extending.yaml', { registry, readFile: () => text })).toThrow(
      /extending\.yaml.*include_inactiv/s,
    );
  });

  it('registers each built-in plugin with one line, the one place the document names', () => {
    const listFile = new URL('../../src/daemon/plugins/builtin-plugins.ts', import.meta.url);
    const code = readFileSync(listFile, 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .split('\n')
      .filter((line) => line.trim() !== '');
    for (const line of code) expect(line).toMatch(/^export \{ \w+ \} from '[^']+\/index\.js';$/);
    const plugins = builtinPlugins();
    expect(plugins).toHaveLength(code.length);
    expect(plugins.filter((plugin) => plugin.kind === 'connector').length).toBeGreaterThan(0);
    expect(plugins.filter((plugin) => plugin.kind === 'flow').length).toBeGreaterThan(0);
    const doc = readFileSync(new URL('../../docs/extending.md', import.meta.url), 'utf8');
    expect(doc.match(/one line in `src\/daemon\/plugins\/builtin-plugins\.ts`/g)).toHaveLength(2);
  });
});
