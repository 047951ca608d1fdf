import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';
import boundaries from './eslint/import-boundaries.js';

/*
 * Import boundaries: what each place may import, as an allow-list. The layers, lowest first: shared -> contract ->
 * client, state -> engine -> plugin contract -> flows, connectors -> daemon -> cli. Beside them: config, log,
 * scheduler, webhooks, ops, kit (what connectors share), ha, api-access and src/connector-contract (the
 * connector interfaces and capabilities); the sandbox, an emulator built on the contract; src/demo-data, plain data that imports nothing.
 *
 * A src folder missing from this table fails lint: a new folder is placed here explicitly. Imports within a place
 * (a src folder, one flow, one connector with its subfolders) are always allowed. Tests, bench and scripts are not
 * checked. Dynamic import() is allowed only in the files under `dynamic`, and reaches what their folder may import
 * plus the places listed there.
 *
 * test/lint/import-boundaries.test.ts runs the rule with this table; docs/extending.md shows it as a table that
 * `node eslint/layer-table.js` writes and test/docs/extending-doc.test.ts keeps current.
 */
const BELOW_PLUGIN = [
  'shared',
  'contract',
  'client',
  'state',
  'engine',
  'config',
  'connector-contract',
  'kit',
];
const BELOW_DAEMON = [
  ...BELOW_PLUGIN,
  'demo-data',
  'log',
  'scheduler',
  'webhooks',
  'ops',
  'ha',
  'api-access',
  'notify',
  'plugin',
  'sandbox',
  'flows/*',
  'connectors/*',
];

export const LAYERS = {
  src: {
    shared: [],
    'demo-data': [],
    contract: ['shared'],
    log: ['shared'],
    scheduler: ['shared'],
    state: ['shared'],
    client: ['shared', 'contract'],
    'connector-contract': ['shared'],
    config: ['shared', 'contract', 'scheduler'],
    webhooks: ['shared', 'contract', 'client', 'state'],
    engine: ['shared', 'contract', 'client', 'state'],
    ops: ['shared', 'log', 'webhooks'],
    // The fence checks a write's transaction through the state's SQL port and throws the state's refusal.
    ha: ['shared', 'config', 'state'],
    kit: ['shared', 'config', 'connector-contract'],
    'api-access': ['shared', 'contract', 'client', 'config'],
    notify: ['shared', 'client', 'config', 'scheduler', 'state'],
    plugin: ['shared', 'contract', 'client', 'state', 'engine', 'config', 'connector-contract', 'api-access'],
    sandbox: ['shared', 'contract', 'demo-data'],
    daemon: BELOW_DAEMON,
    cli: [...BELOW_DAEMON, 'daemon'],
  },
  /** A flow (src/flows/<name>): the plugin contract and what lies below it; src/flows/shared, never another flow. */
  flow: [...BELOW_PLUGIN, 'plugin'],
  /**
   * A connector (connectors/<name>/**): the plugin contract, the connector interfaces, config helpers, the kit and
   * the demo data; never the API (client, contract, api-access), a flow, the sandbox, the daemon, the CLI, ha or
   * another connector.
   */
  connector: ['shared', 'config', 'connector-contract', 'kit', 'plugin', 'demo-data'],
  /** Connectors and flows outside connectors/ and src/flows: the worked example of docs/extending.md. */
  plugins: {
    'test/docs/extending/customer-file-connector.ts': 'connector',
    'test/docs/extending/unlinked-customers-flow.ts': 'flow',
  },
  dynamic: {
    // The embedded sandbox (demo, trials) is loaded on demand, so a daemon against a real API never loads it.
    'src/api-access/endpoint.ts': ['sandbox'],
    // The PostgreSQL and SQL Server drivers load their packages only when a config uses them.
    'src/kit/sql/connection.ts': [],
    // The CLI loads the daemon and the sandbox only for the commands that run them.
    'src/cli/plugins.ts': [],
    'src/cli/commands/run.ts': [],
    'src/cli/commands/demo.ts': [],
    'src/cli/commands/sync.ts': [],
    'src/cli/commands/sandbox.ts': [],
    // A change to a PostgreSQL state takes the leadership lease, as `sync` does.
    'src/cli/state-access.ts': [],
    // undici, nodemailer and pg are loaded at their first use, not at every CLI start.
    'src/shared/lazy-packages.ts': [],
  },
};

const importBoundaries = {
  files: ['src/**/*.ts', 'connectors/**/*.ts', ...Object.keys(LAYERS.plugins)],
  plugins: { boundaries },
  rules: {
    'boundaries/allowed-imports': ['error', { root: import.meta.dirname, table: LAYERS }],
  },
};

/*
 * No function over 60 lines in the daemon's code and the connectors, counted as ESLint counts by default (blank
 * lines and comments included): a longer function is split into named helpers. Tests, bench and scripts are free.
 * test/lint/function-length.test.ts checks the limit.
 */
export const MAX_FUNCTION_LINES = 60;

const functionLength = {
  files: ['src/**/*.ts', 'connectors/**/*.ts'],
  rules: {
    'max-lines-per-function': ['error', { max: MAX_FUNCTION_LINES }],
  },
};

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'state/', 'coverage/', 'bench/out/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-empty': ['error', { allowEmptyCatch: false }],
    },
  },
  {
    files: ['bin/**/*.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
  importBoundaries,
  functionLength,
  prettier,
);
