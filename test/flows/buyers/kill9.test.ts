/**
 * kill -9 at seeded random points: a child process runs the buyers job against the sandbox this test hosts and the
 * demo ERP on a SQLite file, on a real state file, and is killed with SIGKILL (by a timer here, or by itself before
 * or after a buyer PATCH or an invitation), then restarted. Meanwhile the ERP gains customers, buyers accept
 * invitations, and someone edits linked buyers by hand (also while the job runs, which exercises If-Match).
 * In the end every linked buyer carries its ERP customer, every unlinked ERP customer has exactly one invitation,
 * and no change was written to a buyer twice unless an edit undid it in between.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/shared/clock.js';
import { openStateStore } from '../../../src/state/index.js';
import { mulberry32, startSupplierHarness, type SupplierHarness } from '../documents/supplier-harness.js';
import { expectConverges, killRounds } from '../kill9/rounds.js';
import type { BuyerSendEntry, BuyersChildSettings } from './child.js';

const KILL_POINTS = Number(process.env['BUYERS_KILL_POINTS'] ?? 50);
const CHILD = join(import.meta.dirname, 'child.ts');
/** Two independent scenarios (own sandbox, ERP and state file) run side by side to bound the wall time. */
const SCENARIOS = 2;
const DEMO_BUYER = 'byr_demo';
const DEMO_CUSTOMER = 'C-10042';

const harnesses: SupplierHarness[] = [];
afterEach(async () => {
  await Promise.all(harnesses.splice(0).map((harness) => harness.close()));
});

interface StoredBuyer {
  id: string;
  status: string;
  customer_number: string | null;
  erp_ref: string | null;
}
interface StoredInvitation {
  id: string;
  status: string;
  customer_number: string | null;
}

/** The ERP users, the buyers and the person who edits buyers by hand, as one seeded actor. */
class World {
  /** Linked buyer -> the ERP customer it really is. */
  readonly truth = new Map<string, string>([[DEMO_BUYER, DEMO_CUSTOMER]]);
  #customers = 0;
  #edits = 0;

  constructor(
    private readonly harness: SupplierHarness,
    private readonly random: () => number,
    private readonly prefix: string,
    private readonly sendLog: string,
  ) {}

  async change(): Promise<void> {
    if (this.random() < 0.7) await this.addCustomers(1 + Math.floor(this.random() * 3));
    if (this.random() < 0.4) await this.acceptInvitation();
    if (this.random() < 0.5) await this.editBuyer();
  }

  async addCustomers(count: number): Promise<void> {
    for (let n = 0; n < count; n += 1) {
      this.#customers += 1;
      const number = `${this.prefix}-${this.#customers}`;
      await this.harness.erp.driver.query(
        'INSERT INTO CUSTOMERS (CUSTNAME, CUSTDES, VATNUM, EMAIL) VALUES (:number, :name, NULL, :email)',
        { number, name: `Customer ${number}`, email: `${number.toLowerCase()}@buyers.example` },
      );
    }
  }

  /** An invited customer signs up: a new linked buyer with the customer number, without erp_ref. */
  async acceptInvitation(): Promise<void> {
    const readout = await this.harness.sandbox.control.state();
    const open = Object.values(readout['invitations'] as Record<string, StoredInvitation>).filter(
      (invitation) => invitation.status === 'sent' && invitation.customer_number !== null,
    );
    const invitation = open[Math.floor(this.random() * open.length)];
    if (invitation === undefined) return;
    const buyer = (await this.harness.sandbox.control.action('accept_invitation', {
      invitation_id: invitation.id,
    })) as StoredBuyer;
    this.truth.set(buyer.id, invitation.customer_number ?? '');
  }

  /** Someone overwrites one of the two fields of a linked buyer; the other still names the customer. */
  async editBuyer(): Promise<void> {
    const ids = [...this.truth.keys()];
    const id = ids[Math.floor(this.random() * ids.length)];
    if (id === undefined) return;
    const current = await this.harness.api.supplierBuyers.get(id);
    const customer = this.truth.get(id);
    // Only a field whose partner is right may be overwritten, or the buyer would match no customer at all.
    const fields = [
      ...(current.erp_ref === customer ? ['customer_number' as const] : []),
      ...(current.customer_number === customer ? ['erp_ref' as const] : []),
    ];
    const field = fields[Math.floor(this.random() * fields.length)];
    if (field === undefined) return;
    this.#edits += 1;
    const body = { [field]: `EDIT-${this.#edits}` };
    const entry = { pid: process.pid, op: 'edit', buyer: id, body: JSON.stringify(body) };
    appendFileSync(this.sendLog, `${JSON.stringify({ ...entry, phase: 'start' })}\n`);
    await this.harness.api.supplierBuyers.update(id, body);
    appendFileSync(this.sendLog, `${JSON.stringify({ ...entry, phase: 'done' })}\n`);
  }
}

function readSendLog(file: string): BuyerSendEntry[] {
  // A SIGKILL can cut the last line short; only whole lines count.
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.endsWith('}'))
    .map((line) => JSON.parse(line) as BuyerSendEntry);
}

/**
 * The same PATCH body acknowledged twice for one buyer is a second write of the same change, unless a hand edit
 * could have undone the first in between (an edit that ended after the first was sent and started before the
 * second was). A PATCH that got no answer (its process was killed) is not counted: the job re-reads the buyer
 * before writing, so its restart writes again only if the first never arrived.
 */
function doubleWrites(log: readonly BuyerSendEntry[]): string[] {
  const sends = new Map<string, { at: number; body: string }[]>();
  const edits = new Map<string, { start: number; done: number }[]>();
  log.forEach((entry, at) => {
    if (entry.op === 'patch' && entry.phase === 'send') {
      const acked = log
        .slice(at + 1)
        .find((later) => later.pid === entry.pid && later.op === 'patch' && later.phase !== 'send');
      if (acked?.phase === 'ok' && acked.body === entry.body && acked.buyer === entry.buyer)
        sends.set(entry.buyer, [...(sends.get(entry.buyer) ?? []), { at, body: entry.body }]);
    }
    if (entry.op === 'edit' && entry.phase === 'start') {
      const done = log.findIndex(
        (later, index) =>
          index > at && later.op === 'edit' && later.phase === 'done' && later.buyer === entry.buyer,
      );
      edits.set(entry.buyer, [...(edits.get(entry.buyer) ?? []), { start: at, done }]);
    }
  });
  const problems: string[] = [];
  for (const [buyer, history] of sends) {
    history.forEach((send, index) => {
      const previous = history[index - 1];
      if (previous === undefined || previous.body !== send.body) return;
      const undone = (edits.get(buyer) ?? []).some((edit) => edit.done > previous.at && edit.start < send.at);
      if (!undone)
        problems.push(`${buyer}: ${send.body} written twice (log lines ${previous.at}, ${send.at})`);
    });
  }
  return problems;
}

async function scenario(seed: number, points: number) {
  const harness = await startSupplierHarness();
  harnesses.push(harness);
  const random = mulberry32(seed);
  const sendLog = join(harness.dir, 'sends.jsonl');
  appendFileSync(sendLog, '');
  const world = new World(harness, random, `CK${seed}`, sendLog);
  await world.addCustomers(6);
  const settings: BuyersChildSettings = {
    baseUrl: harness.sandbox.baseUrl,
    apiKey: harness.sandbox.keys.supplier,
    stateFile: join(harness.dir, 'daemon.db'),
    erpFile: harness.erp.file,
    sendLog,
  };
  const rounds = await killRounds({
    child: CHILD,
    envName: 'BUYERS_CHILD',
    settings: { ...settings },
    random,
    points,
    maxStep: 8,
    maxDelayMs: 250,
    between: () => world.change(),
    during: async () => {
      if (random() < 0.5) await world.editBuyer();
    },
    duringMaxMs: 400,
  });
  await expectConverges(CHILD, 'BUYERS_CHILD', { ...settings });

  const readout = await harness.sandbox.control.state();
  const buyers = readout['supplierBuyers'] as Record<string, StoredBuyer>;
  for (const [id, customer] of world.truth) {
    expect({ id, customer_number: buyers[id]?.customer_number, erp_ref: buyers[id]?.erp_ref }).toEqual({
      id,
      customer_number: customer,
      erp_ref: customer,
    });
  }

  // Every ERP customer that is not the demo buyer's was invited exactly once.
  const { rows } = await harness.erp.driver.query(
    "SELECT CUSTNAME FROM CUSTOMERS WHERE INACTIVE = 'N' AND EMAIL IS NOT NULL",
    {},
  );
  const invitable = rows.map((row) => String(row['CUSTNAME'])).filter((number) => number !== DEMO_CUSTOMER);
  const invitations = Object.values(readout['invitations'] as Record<string, StoredInvitation>);
  const perCustomer = new Map<string, number>();
  for (const invitation of invitations) {
    const number = invitation.customer_number ?? '(none)';
    perCustomer.set(number, (perCustomer.get(number) ?? 0) + 1);
  }
  expect([...perCustomer.keys()].sort()).toEqual([...invitable].sort());
  expect([...perCustomer].filter(([, count]) => count !== 1)).toEqual([]);

  const log = readSendLog(sendLog);
  expect(doubleWrites(log)).toEqual([]);
  const state = openStateStore({ file: settings.stateFile, clock: systemClock });
  try {
    // Only the seeded buyer whose customer is not in the ERP stays unmatched.
    expect(
      state.deadLetters.list({ flow: 'buyers', statuses: ['open'] }).map((letter) => letter.recordKey),
    ).toEqual(['byr_cafe_nord']);
  } finally {
    state.close();
  }
  const patched = log.filter((entry) => entry.op === 'patch' && entry.phase === 'ok').length;
  const refused = log.filter((entry) => entry.op === 'patch' && entry.phase === 'failed').length;
  const edits = log.filter((entry) => entry.op === 'edit' && entry.phase === 'done').length;
  return { ...rounds, patched, refused, edits, invited: invitations.length };
}

describe('buyers flow under kill -9', () => {
  it(`${KILL_POINTS} kills inside runs, then every buyer mapped once and every customer invited once`, async () => {
    const perScenario = Math.ceil(KILL_POINTS / SCENARIOS);
    const results = await Promise.all(
      Array.from({ length: SCENARIOS }, (_, index) => scenario(20261122 + index, perScenario)),
    );
    const kills = results.reduce((sum, r) => sum + r.killsInRuns, 0);
    const clean = results.reduce((sum, r) => sum + r.cleanExits, 0);
    const sum = (pick: (r: (typeof results)[number]) => number) => results.reduce((n, r) => n + pick(r), 0);
    console.info(
      `buyers kill -9: ${kills} kills inside runs, ${clean} runs not killed; ${sum((r) => r.patched)} buyer PATCHes answered and ${sum((r) => r.refused)} refused, ${sum((r) => r.edits)} hand edits, ${sum((r) => r.invited)} invitations`,
    );
    expect(kills).toBeGreaterThanOrEqual(KILL_POINTS);
    expect(results.every((r) => r.killsBeforeRun === 0)).toBe(true);
  }, 240_000);
});
