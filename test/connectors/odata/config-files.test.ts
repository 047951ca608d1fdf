import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  SAP_B1_MODEL,
  startOdataEmulator,
  withoutProperties,
  type OdataEmulator,
} from '../../support/odata-emulator/index.js';
import { runCli, STACK_LINE } from '../../cli/run-cli.js';

/**
 * The shipped example configs for SAP Business One and Priority pass `supply-sync doctor` against the emulator of
 * their ERP, run as a user runs it; a wrong password fails it naming the key, and the password shows nowhere.
 */
const SAP_PASSWORD = 'Sap-Doctor-Pa55';
const PRIORITY_TOKEN = 'pat-doctor-4d2f';
const dir = mkdtempSync(join(tmpdir(), 'supply-odata-config-'));

describe('config/supplier-sap-b1.yaml and config/supplier-priority.yaml against their emulators', () => {
  let sap: OdataEmulator;
  let priority: OdataEmulator;
  beforeAll(async () => {
    sap = await startOdataEmulator({
      erp: 'sap-b1-service-layer',
      users: { manager: SAP_PASSWORD },
      echoCredentials: true,
    });
    priority = await startOdataEmulator({ erp: 'priority-rest', tokens: [PRIORITY_TOKEN] });
  });
  afterAll(async () => {
    await sap?.close();
    await priority?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const base = { SUPPLY_API_KEY: 'svc_test_example', SUPPLY_SYNC_STATE_PATH: join(dir, 'state.db') };
  const sapEnv = (password: string) => ({
    ...base,
    SAP_B1_SERVICE_URL: sap.serviceUrl,
    SAP_B1_COMPANY_DB: 'SBODEMOUS',
    SAP_B1_USER: 'manager',
    SAP_B1_PASSWORD: password,
  });

  it(
    'supplier-sap-b1.yaml passes doctor: one Login and one Logout, every name in $metadata',
    { timeout: 60_000 },
    async () => {
      const { code, stdout, stderr } = await runCli(
        ['doctor', '--offline', '--config', 'config/supplier-sap-b1.yaml'],
        sapEnv(SAP_PASSWORD),
      );
      expect(stdout).toMatch(/OK\s+connector erp\s+.*ERP service signed in/);
      expect(stdout).toMatch(/OK\s+connector erp\s+statements: prepared/);
      expect(stderr).toMatch(/^0 failed, /m);
      expect(code).toBe(0);
      expect(sap.stats.logins).toBe(1);
      expect(sap.stats.logouts).toBe(sap.stats.logins);
    },
  );

  it('supplier-priority.yaml passes doctor with a personal access token', { timeout: 60_000 }, async () => {
    const env = { ...base, PRIORITY_SERVICE_URL: priority.serviceUrl, PRIORITY_TOKEN };
    const { code, stdout, stderr } = await runCli(
      ['doctor', '--offline', '--config', 'config/supplier-priority.yaml'],
      env,
    );
    expect(stdout).toMatch(/OK\s+connector erp\s+statements: prepared/);
    expect(stderr).toMatch(/^0 failed, /m);
    expect(code).toBe(0);
  });

  it(
    'a wrong password fails doctor naming auth.password, and the password is in no output',
    { timeout: 60_000 },
    async () => {
      const wrong = 'Wrong-Doctor-Pa55';
      const { code, stdout, stderr } = await runCli(
        ['doctor', '--offline', '--config', 'config/supplier-sap-b1.yaml'],
        sapEnv(wrong),
      );
      expect(code).not.toBe(0);
      expect(stdout).toMatch(/FAIL\s+connector erp\s+.*Login refused.*auth\.password/);
      expect(`${stdout}${stderr}`).not.toContain(wrong);
      expect(`${stdout}${stderr}`).not.toMatch(STACK_LINE);
    },
  );

  it(
    'a company without U_ApiOrderId fails doctor naming the setting and the preset line, first',
    { timeout: 60_000 },
    async () => {
      const lacking = await startOdataEmulator({
        erp: 'sap-b1-service-layer',
        users: { manager: SAP_PASSWORD },
        model: withoutProperties(SAP_B1_MODEL, ['U_ApiOrderId']),
      });
      try {
        const env = { ...sapEnv(SAP_PASSWORD), SAP_B1_SERVICE_URL: lacking.serviceUrl };
        const { code, stdout } = await runCli(
          ['doctor', '--offline', '--config', 'config/supplier-sap-b1.yaml'],
          env,
        );
        expect(code).not.toBe(0);
        const failures = stdout.split('\n').filter((line) => line.startsWith('FAIL'));
        expect(failures[0]).toContain(
          'config/supplier-sap-b1.yaml: connectors.erp.entities.orders.find_filter: user-defined field U_ApiOrderId ' +
            "is not on Orders in the service's $metadata (set by preset sap-b1-service-layer " +
            `(connectors/odata/presets/sap-b1-service-layer.ts line ${presetLineOf('find_filter: U_ApiOrderId')}))`,
        );
        expect(failures.every((line) => line.includes('U_ApiOrderId'))).toBe(true);
      } finally {
        await lacking.close();
      }
    },
  );
});

/** The 1-based line of the SAP preset's file that holds the text, as a person opening the file would count it. */
function presetLineOf(text: string): number {
  const lines = readFileSync('connectors/odata/presets/sap-b1-service-layer.ts', 'utf8').split('\n');
  return lines.findIndex((line) => line.includes(text)) + 1;
}
