/**
 * Child process for the buyers kill -9 test: runs the buyers job (mapping and invitations) against the parent's
 * sandbox and demo ERP until a run changes nothing. Instrumented points: before and after each buyer PATCH and
 * each invitation (see ../mirror/child-points.ts). Each PATCH is appended to a send log before it is sent and
 * again with its result, so the parent can tell a second write of the same change from a repair after an edit.
 */
import { appendFileSync } from 'node:fs';
import type { ApiClient } from '../../../src/client/index.js';
import { createBuyersJob } from '../../../src/flows/buyers/job.js';
import { buyersOptionsSchema } from '../../../src/flows/buyers/options.js';
import { systemClock } from '../../../src/shared/clock.js';
import { openStateStore } from '../../../src/state/index.js';
import { SqliteDriver } from '../../../src/kit/sql/sqlite-driver.js';
import { SqlCustomerDirectory } from '../../../connectors/sql/erp-catalog.js';
import { demoErpStatements } from '../../../connectors/sql/demo-erp/statements.js';
import {
  childApiClient,
  childSettings,
  killPoints,
  runUntilQuiet,
  type ChildPointSettings,
} from '../kill9/child-points.js';

export interface BuyersChildSettings extends ChildPointSettings {
  baseUrl: string;
  apiKey: string;
  stateFile: string;
  erpFile: string;
  sendLog: string;
}

/** One line of the send log; `phase` send is written before the PATCH, ok or failed after it. */
export interface BuyerSendEntry {
  pid: number;
  op: 'patch' | 'edit';
  phase: 'send' | 'ok' | 'failed' | 'start' | 'done';
  buyer: string;
  body: string;
}

const settings = childSettings<BuyersChildSettings>('BUYERS_CHILD');
const { around } = killPoints(settings.killAtStep);
const log = (entry: Omit<BuyerSendEntry, 'pid'>) =>
  appendFileSync(settings.sendLog, `${JSON.stringify({ pid: process.pid, ...entry })}\n`);

const statements = demoErpStatements.customers;
if (statements === undefined) throw new Error('the demo ERP has no customer statements');
const driver = new SqliteDriver(settings.erpFile);
const directory = new SqlCustomerDirectory(driver, statements, 'erp');
const client = childApiClient(settings);
const api: Pick<ApiClient, 'supplierBuyers'> = {
  supplierBuyers: {
    ...client.supplierBuyers,
    update: (buyerId, body, options) =>
      around(async () => {
        const entry = { op: 'patch' as const, buyer: buyerId, body: JSON.stringify(body) };
        log({ ...entry, phase: 'send' });
        try {
          const updated = await client.supplierBuyers.update(buyerId, body, options);
          log({ ...entry, phase: 'ok' });
          return updated;
        } catch (error) {
          log({ ...entry, phase: 'failed' });
          throw error;
        }
      }),
    invite: (body, options) => around(() => client.supplierBuyers.invite(body, options)),
  },
};

const state = openStateStore({ file: settings.stateFile, clock: systemClock });
const job = createBuyersJob({
  name: 'buyers',
  connectorName: 'erp',
  api,
  directory,
  // A cap below the backlog of unlinked customers: invitations spread over several runs (and kills).
  options: buyersOptionsSchema.parse({ invite: { enabled: true, max_per_run: 2 } }),
  mappings: {},
});
await runUntilQuiet(
  job,
  state,
  (result) =>
    ['updated', 'invited', 'open_elsewhere', 'deadLettered'].every((key) => (result.counts[key] ?? 0) === 0),
  async () => {
    await client.close();
    await driver.close();
  },
);
