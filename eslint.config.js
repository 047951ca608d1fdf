import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

/*
 * Import boundaries. The layers, lowest first: shared -> contract -> client, state -> engine -> flows, connectors
 * -> daemon -> cli (config, log, scheduler, webhooks, ops, kit and the connector contract in src/connectors sit
 * below the flows; the sandbox is a separate emulator built on the contract). A module imports only from its own
 * layer or lower ones. Connectors (connectors/*) use src/ (the connector contract, config helpers, the kit) but
 * never a flow, the sandbox, the daemon, the CLI or another connector.
 *
 * The rules match import specifiers, which are relative: a file N folders below src/ reaches another src folder
 * with N "../", and the top-level connectors/ folder with N + 1.
 *
 * EXISTING is the list of imports that break these rules today, each allowed by name until it is moved away.
 */
const EXISTING = {
  // The flow contract still lives in the daemon folder.
  flowsToDaemon: 'flow-definition\\.js$',
  // The csv accounting connector reuses the Hashavshevet connector's encoding and folder checks.
  csvAccountingToConnector: 'hashavshevet/',
  // The demo ERP is built on the sql connector, and seeds itself from the sandbox's demo data.
  demoErpToConnector: 'sql/',
  demoErpToSandbox: 'domain/seed/',
  // The Hashavshevet connector still imports atomic files from their old place (now a re-export of src/kit).
  hashavshevetToFlows: 'shared/atomic-file\\.js$',
};

const SRC_DEPTHS = [1, 2, 3, 4];

/** `no-restricted-imports` for files `depth` folders below src/: forbidden src folders and top-level connectors/. */
function srcBoundary(folders, { layers, topConnectors, message, allow = {} }) {
  return SRC_DEPTHS.map((depth) => {
    const up = `(\\.\\./){${depth}}`;
    const patterns = layers.map((layer) => ({
      regex: `^${up}${layer}/${allow[layer] === undefined ? '' : `(?!${allow[layer]})`}`,
      message,
    }));
    if (topConnectors) patterns.push({ regex: `^${up}\\.\\./connectors/`, message });
    return {
      files: folders.map((folder) => `src/${folder}/${'*/'.repeat(depth - 1)}*.ts`),
      rules: { 'no-restricted-imports': ['error', { patterns }] },
    };
  });
}

/** `no-restricted-imports` for one connector's files (connectors/<name>/*.ts). */
function connectorBoundary(name, { otherConnectorsBut, srcAllow = {} } = {}) {
  const message =
    'a connector imports src/ (contract, config, kit), never a flow, the sandbox, the daemon, the CLI or another connector';
  const forbidden = ['flows', 'sandbox', 'daemon', 'cli'];
  return {
    files: [`connectors/${name}/*.ts`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...forbidden.map((folder) => ({
              regex: `^\\.\\./\\.\\./src/${folder}/${srcAllow[folder] === undefined ? '' : `(?!${srcAllow[folder]})`}`,
              message,
            })),
            {
              regex: `^\\.\\./${otherConnectorsBut === undefined ? '' : `(?!${otherConnectorsBut})`}[^./]`,
              message,
            },
          ],
        },
      ],
    },
  };
}

const BELOW_FLOWS = ['config', 'connectors', 'kit', 'log', 'ops', 'scheduler', 'webhooks'];
const UPPER = ['flows', 'daemon', 'cli', 'sandbox'];

const importBoundaries = [
  ...srcBoundary(['shared'], {
    layers: ['contract', 'client', 'state', 'engine', 'config', 'connectors', 'kit', ...UPPER],
    topConnectors: true,
    message: 'src/shared is the lowest layer: it imports nothing else from src/',
  }),
  ...srcBoundary(['contract'], {
    layers: ['client', 'state', 'engine', ...UPPER],
    topConnectors: true,
    message: 'the contract layer imports only src/shared',
  }),
  ...srcBoundary(['client', 'state'], {
    layers: ['engine', ...UPPER],
    topConnectors: true,
    message: 'client and state sit below the engine, the flows, the daemon and the CLI',
  }),
  ...srcBoundary(['engine', ...BELOW_FLOWS], {
    layers: UPPER,
    topConnectors: true,
    message: 'this layer sits below the flows, the connectors, the daemon and the CLI',
  }),
  ...srcBoundary(['sandbox'], {
    layers: ['client', 'state', 'engine', 'flows', 'daemon', 'cli'],
    topConnectors: true,
    message: 'the sandbox emulates the API from the contract alone',
  }),
  ...srcBoundary(['flows'], {
    layers: ['daemon', 'cli', 'sandbox'],
    topConnectors: true,
    allow: { daemon: EXISTING.flowsToDaemon },
    message:
      'a flow imports no daemon, CLI, sandbox or connector module (connectors reach it through src/connectors)',
  }),
  ...srcBoundary(['daemon'], {
    layers: ['cli'],
    topConnectors: false,
    message: 'the daemon sits below the CLI',
  }),
  connectorBoundary('sql'),
  connectorBoundary('csv-erp'),
  connectorBoundary('csv-sales'),
  connectorBoundary('csv-accounting', { otherConnectorsBut: EXISTING.csvAccountingToConnector }),
  connectorBoundary('demo-erp', {
    otherConnectorsBut: EXISTING.demoErpToConnector,
    srcAllow: { sandbox: EXISTING.demoErpToSandbox },
  }),
  connectorBoundary('hashavshevet', { srcAllow: { flows: EXISTING.hashavshevetToFlows } }),
  // A connector added later gets the rule without exceptions.
  {
    ...connectorBoundary('*'),
    ignores: ['connectors/{sql,csv-erp,csv-sales,csv-accounting,demo-erp,hashavshevet}/*.ts'],
  },
];

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
  ...importBoundaries,
  prettier,
);
