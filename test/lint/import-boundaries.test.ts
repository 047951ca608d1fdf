/**
 * The import-boundary rule (eslint/import-boundaries.js) run by ESLint's own engine with the project's
 * eslint.config.js, its layer table included, on small source texts given virtual paths in the repository: the
 * messages are the ones `npm run lint` prints.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { LAYERS } from '../../eslint/layer-table.js';

const ROOT = resolve(import.meta.dirname, '../..');
const RULE = 'boundaries/allowed-imports';
const eslint = new ESLint({ cwd: ROOT });

interface Found {
  line: number;
  message: string;
}

/** The rule's messages for `text` at `file` (a path in the repository); fails if the config does not apply it. */
async function boundaries(file: string, ...lines: string[]): Promise<Found[]> {
  const filePath = join(ROOT, file);
  const config = (await eslint.calculateConfigForFile(filePath)) as { rules?: Record<string, unknown> };
  expect(config.rules?.[RULE], `${RULE} is not configured for ${file}`).toBeDefined();
  const [result] = await eslint.lintText(`${lines.join('\n')}\n`, { filePath });
  return (result?.messages ?? [])
    .filter((message) => message.ruleId === RULE)
    .map(({ line, message }) => ({ line, message }));
}

/** The one message of a text whose only import is `line`. */
async function refusal(file: string, line: string): Promise<string> {
  const found = await boundaries(file, line);
  expect(found, `${file}: ${line}`).toHaveLength(1);
  return found[0]?.message ?? '';
}

const CONNECTOR_MAY =
  'src/shared, src/config, src/connector-contract, src/kit, src/plugin, src/demo-data (eslint.config.js, layer table)';
const FLOW_MAY =
  'src/shared, src/contract, src/client, src/state, src/engine, src/config, src/connector-contract, src/kit, ' +
  'src/plugin, src/flows/shared (eslint.config.js, layer table)';

describe('import boundaries of src folders', () => {
  it('lets a folder import what its row lists, from any depth, and anything within itself', async () => {
    expect(
      await boundaries(
        'src/state/extra.ts',
        "import type { Clock } from '../shared/clock.js';",
        "import { RunStore } from './runs.js';",
        "import * as z from 'zod';",
        'export type Both = [Clock, RunStore, typeof z];',
      ),
    ).toEqual([]);
    expect(
      await boundaries(
        'src/engine/deep/er/file.ts',
        "import { RunStore } from '../../../state/runs.js';",
        "import { errorMessage } from '../../outcome.js';",
        'export const both = [RunStore, errorMessage];',
      ),
    ).toEqual([]);
  });

  it('refuses an import its row does not list, with the message lint prints, on the line of the import', async () => {
    expect(
      await boundaries(
        'src/state/extra.ts',
        "import { Clock } from '../shared/clock.js';",
        "import { runJob } from '../engine/index.js';",
        'export const both = [Clock, runJob];',
      ),
    ).toEqual([
      {
        line: 2,
        message:
          'src/state may not import src/engine (../engine/index.js); it may import src/shared (eslint.config.js, layer table)',
      },
    ]);
  });

  it('says so when a folder may import nothing from elsewhere', async () => {
    expect(await refusal('src/shared/extra.ts', "import '../log/index.js';")).toBe(
      'src/shared may not import src/log (../log/index.js); it may import nothing from elsewhere in the project (eslint.config.js, layer table)',
    );
  });

  it('checks `import type`, `export ... from`, `export * from` and `typeof import()` types like imports', async () => {
    const expected = (specifier: string) =>
      `src/state may not import src/engine (${specifier}); it may import src/shared (eslint.config.js, layer table)`;
    expect(await refusal('src/state/extra.ts', "import type { Job } from '../engine/index.js';")).toBe(
      expected('../engine/index.js'),
    );
    expect(await refusal('src/state/extra.ts', "export { runJob } from '../engine/run-job.js';")).toBe(
      expected('../engine/run-job.js'),
    );
    expect(await refusal('src/state/extra.ts', "export type { Job } from '../engine/job.js';")).toBe(
      expected('../engine/job.js'),
    );
    expect(await refusal('src/state/extra.ts', "export * from '../engine/outcome.js';")).toBe(
      expected('../engine/outcome.js'),
    );
    expect(
      await refusal('src/state/extra.ts', "export type Engine = typeof import('../engine/index.js');"),
    ).toBe(expected('../engine/index.js'));
  });

  it('fails a src folder missing from the table, and a file directly in src, naming what to do', async () => {
    expect(await boundaries('src/notifications/index.ts', 'export const channels = [];')).toEqual([
      {
        line: 1,
        message:
          'src/notifications is not in the layer table of eslint.config.js: place its folder there, with what it may import',
      },
    ]);
    expect(await refusal('src/index.ts', 'export const nothing = 0;')).toBe(
      'src/index.ts is not in the layer table of eslint.config.js: place its folder there, with what it may import',
    );
  });
});

describe('import boundaries of connectors', () => {
  it('lets a connector import the plugin contract, connector interfaces, config, kit, demo data and itself', async () => {
    expect(
      await boundaries(
        'connectors/erp-x/sub/reader.ts',
        "import { defineConnector } from '../../../src/plugin/index.js';",
        "import type { Connector } from '../../../src/connector-contract/index.js';",
        "import { secret } from '../../../src/config/index.js';",
        "import * as kit from '../../../src/kit/index.js';",
        "import * as demo from '../../../src/demo-data/index.js';",
        "import { schema } from '../schema.js';",
        'export type All = [typeof defineConnector, Connector, typeof secret, typeof kit, typeof demo, typeof schema];',
      ),
    ).toEqual([]);
  });

  it('refuses the API client, from the connector folder or a subfolder of it', async () => {
    expect(
      await refusal(
        'connectors/erp-x/index.ts',
        "import { createApiClient } from '../../src/client/index.js';",
      ),
    ).toBe(
      `connectors/erp-x may not import src/client (../../src/client/index.js); it may import ${CONNECTOR_MAY}`,
    );
    expect(
      await refusal(
        'connectors/erp-x/sub/file.ts',
        "import type { Order } from '../../../src/contract/index.js';",
      ),
    ).toBe(
      `connectors/erp-x may not import src/contract (../../../src/contract/index.js); it may import ${CONNECTOR_MAY}`,
    );
  });

  it('refuses another connector and a flow', async () => {
    expect(await refusal('connectors/erp-x/index.ts', "import { sql } from '../sql/index.js';")).toBe(
      `connectors/erp-x may not import connectors/sql (../sql/index.js); it may import ${CONNECTOR_MAY}`,
    );
    expect(
      await refusal('connectors/erp-x/index.ts', "import { orders } from '../../src/flows/orders/index.js';"),
    ).toBe(
      `connectors/erp-x may not import src/flows/orders (../../src/flows/orders/index.js); it may import ${CONNECTOR_MAY}`,
    );
  });
});

describe('import boundaries of flows', () => {
  it('lets a flow import the plugin contract, what lies below it and src/flows/shared', async () => {
    expect(
      await boundaries(
        'src/flows/orders/extra.ts',
        "import { defineFlow } from '../../plugin/index.js';",
        "import { createApiClient } from '../../client/index.js';",
        "import { runJob } from '../../engine/index.js';",
        "import * as shared from '../shared/index.js';",
        "import { helper } from './helper.js';",
        'export const all = [defineFlow, createApiClient, runJob, shared, helper];',
      ),
    ).toEqual([]);
  });

  it('refuses another flow, a connector and the daemon', async () => {
    expect(await refusal('src/flows/orders/extra.ts', "import { catalog } from '../catalog/index.js';")).toBe(
      `src/flows/orders may not import src/flows/catalog (../catalog/index.js); it may import ${FLOW_MAY}`,
    );
    expect(
      await refusal('src/flows/orders/extra.ts', "import { sql } from '../../../connectors/sql/index.js';"),
    ).toBe(
      `src/flows/orders may not import connectors/sql (../../../connectors/sql/index.js); it may import ${FLOW_MAY}`,
    );
    expect(
      await refusal('src/flows/orders/extra.ts', "import { runDaemon } from '../../daemon/index.js';"),
    ).toBe(`src/flows/orders may not import src/daemon (../../daemon/index.js); it may import ${FLOW_MAY}`);
  });

  it('refuses a flow to src/flows/shared, whose own list does not hold itself', async () => {
    expect(await refusal('src/flows/shared/extra.ts', "import { orders } from '../orders/index.js';")).toBe(
      'src/flows/shared may not import src/flows/orders (../orders/index.js); it may import src/shared, ' +
        'src/contract, src/client, src/state, src/engine, src/config, src/connector-contract, src/kit, src/plugin ' +
        '(eslint.config.js, layer table)',
    );
  });
});

describe('the worked example of docs/extending.md', () => {
  it('holds its connector file to the rules of a connector and its flow file to those of a flow', async () => {
    const connector = 'test/docs/extending/customer-file-connector.ts';
    expect(await refusal(connector, "import { createApiClient } from '../../../src/client/index.js';")).toBe(
      `${connector} may not import src/client (../../../src/client/index.js); it may import ${CONNECTOR_MAY}`,
    );
    const flow = 'test/docs/extending/unlinked-customers-flow.ts';
    expect(await refusal(flow, "import { runDaemon } from '../../../src/daemon/index.js';")).toBe(
      `${flow} may not import src/daemon (../../../src/daemon/index.js); it may import ${FLOW_MAY}`,
    );
    expect(
      await boundaries(flow, "import { defineFlow } from '../../../src/plugin/index.js';", 'defineFlow;'),
    ).toEqual([]);
  });
});

describe('dynamic import()', () => {
  const notListed = (specifier: string) =>
    `import() of ${specifier}: dynamic imports are allowed only in the files listed under "dynamic" in eslint.config.js`;

  it('fails outside the files listed under "dynamic", whatever it imports', async () => {
    expect(
      await refusal(
        'src/cli/commands/status.ts',
        "export const load = () => import('../../daemon/index.js');",
      ),
    ).toBe(notListed('../../daemon/index.js'));
    expect(await refusal('src/kit/csv-extra.ts', "export const load = () => import('pg');")).toBe(
      notListed('pg'),
    );
  });

  it('reaches, in a listed file, what its folder may import plus the places listed for it, and no more', async () => {
    expect(await boundaries('src/kit/sql/connection.ts', "export const load = () => import('pg');")).toEqual(
      [],
    );
    const endpoint = 'src/api-access/endpoint.ts';
    expect(
      await boundaries(
        endpoint,
        "export const sandbox = () => import('../sandbox/index.js');",
        "export const client = () => import('../client/index.js');",
      ),
    ).toEqual([]);
    const mayImport =
      'it may import src/shared, src/contract, src/client, src/config (eslint.config.js, layer table)';
    expect(await refusal(endpoint, "import { startSandbox } from '../sandbox/index.js';")).toBe(
      `src/api-access may not import src/sandbox (../sandbox/index.js); ${mayImport}`,
    );
    expect(await refusal(endpoint, "export const state = () => import('../state/index.js');")).toBe(
      `src/api-access may not import src/state (../state/index.js); ${mayImport}`,
    );
  });

  it('takes only a string literal, even in a listed file', async () => {
    expect(await refusal('src/cli/plugins.ts', 'export const load = (name: string) => import(name);')).toBe(
      'import() takes a string literal here, so the import boundaries can be checked',
    );
  });
});

describe('what the rule leaves alone', () => {
  it('does not check tests, bench or scripts', async () => {
    for (const file of ['test/state/extra.test.ts', 'bench/extra.ts', 'scripts/extra.ts']) {
      const filePath = join(ROOT, file);
      const config = (await eslint.calculateConfigForFile(filePath)) as { rules?: Record<string, unknown> };
      expect(config.rules?.[RULE], file).toBeUndefined();
      const [result] = await eslint.lintText("import('../src/daemon/index.js');\n", { filePath });
      expect(result?.messages.filter((message) => message.ruleId === RULE)).toEqual([]);
    }
  });
});

describe('the layer table', () => {
  const srcFolders = readdirSync(join(ROOT, 'src')).filter((name) =>
    statSync(join(ROOT, 'src', name)).isDirectory(),
  );

  it('has a row for every src folder (flows have theirs) and none for a folder that is gone', () => {
    const rows = Object.keys(LAYERS.src).sort();
    expect(rows).toEqual(srcFolders.filter((name) => name !== 'flows').sort());
  });

  it('names only places and files that exist', () => {
    const flows = readdirSync(join(ROOT, 'src', 'flows')).map((name) => `flows/${name}`);
    const places = new Set([...Object.keys(LAYERS.src), 'plugin', 'flows/*', 'connectors/*', ...flows]);
    const lists = [
      ...Object.values(LAYERS.src),
      LAYERS.flow,
      LAYERS.connector,
      ...Object.values(LAYERS.dynamic),
    ];
    for (const list of lists) for (const place of list) expect(places.has(place), place).toBe(true);
    for (const file of [...Object.keys(LAYERS.dynamic), ...Object.keys(LAYERS.plugins)]) {
      expect(existsSync(join(ROOT, file)), file).toBe(true);
    }
  });
});
