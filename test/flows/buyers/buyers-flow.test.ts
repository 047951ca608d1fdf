import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../../src/client/index.js';
import type { Mappings } from '../../../src/plugin/index.js';
import { buyersFlow, createBuyersJob, buyersOptionsSchema } from '../../../src/flows/buyers/index.js';
import { openOrdersWorld, type OrdersWorld } from '../orders/harness.js';

let world: OrdersWorld;

function buyersJob(options: Record<string, unknown> = {}, mappings: Mappings = {}) {
  return buyersFlow.create(
    { name: 'buyers', connector: 'erp', options: buyersFlow.options.parse(options) },
    world.deps(mappings),
  );
}

async function invitations(): Promise<Array<{ customer_number: string | null; contact_email: string }>> {
  const readout = await world.sandbox.control.state();
  return Object.values(
    readout['invitations'] as Record<string, { customer_number: string | null; contact_email: string }>,
  );
}

beforeEach(async () => {
  world = await openOrdersWorld();
});

afterEach(async () => {
  await world.close();
});

describe('buyers flow', () => {
  it('writes the ERP customer onto matched buyers and names what is missing for the others', async () => {
    const result = await world.run(buyersJob());
    expect(result.outcome).toBe('ok');
    expect(result.counts['updated']).toBe(1);
    expect(result.counts['inactive']).toBe(1);
    expect((await world.api.supplierBuyers.get('byr_demo')).erp_ref).toBe('C-10042');
    const letter = world.state.deadLetters.get('buyers', 'byr_cafe_nord');
    expect(letter?.reason).toBe(
      'no ERP customer for buyer byr_cafe_nord "Cafe Nord Ltd" (customer_number C-10077 not in the ERP, erp_ref null, not in mappings.buyers, tax_id 514488120 not in the ERP)',
    );

    const again = await world.run(buyersJob({}, { buyers: { byr_cafe_nord: 'C-10057' } }));
    expect(again.counts['unchanged']).toBe(1);
    expect(again.counts['updated']).toBe(1);
    const nord = await world.api.supplierBuyers.get('byr_cafe_nord');
    expect(nord.customer_number).toBe('C-10057');
    expect(nord.erp_ref).toBe('C-10057');
    expect(world.state.deadLetters.countOpen('buyers')).toBe(0);
  });

  it('ends failed when every buyer was held back, and the run is no success (docs/operations.md, "Run outcomes")', async () => {
    await world.erpRows(`DELETE FROM CUSTSHIPTO WHERE CUSTNAME = 'C-10042'`);
    await world.erpRows(`DELETE FROM CUSTOMERS WHERE CUSTNAME = 'C-10042'`);
    const result = await world.run(buyersJob());
    expect(result).toMatchObject({ outcome: 'failed', counts: { delivered: 0, held_back: 2 } });
    expect(result.error).toMatch(/^delivered nothing: all 2 buyers held back/);
    expect(world.state.deadLetters.get('buyers', 'byr_demo')?.reason).toMatch(
      /no ERP customer for buyer byr_demo/,
    );
    const [record] = world.state.runs.recent('buyers', 1);
    expect(record).toMatchObject({ outcome: 'failed', counts: { delivered: 0, held_back: 2 } });
    expect(world.state.runs.last('buyers', ['ok', 'partial'])).toBeNull();
  });

  it('re-reads and retries once when the buyer changed under it (412)', async () => {
    let interfere = true;
    let updates = 0;
    const api = {
      supplierBuyers: {
        ...world.api.supplierBuyers,
        update: async (...args: Parameters<ApiClient['supplierBuyers']['update']>) => {
          updates += 1;
          if (interfere) {
            interfere = false;
            // Someone edits the buyer in the web app between our read and our write.
            await world.api.supplierBuyers.update(args[0], { erp_ref: 'EDITED-BY-HAND' });
          }
          return world.api.supplierBuyers.update(...args);
        },
      },
    } as Pick<ApiClient, 'supplierBuyers'>;
    const directory = world.erp.capabilities.customerDirectory;
    if (directory === undefined) throw new Error('the demo ERP has no customer directory');
    const job = createBuyersJob({
      name: 'buyers',
      connectorName: 'erp',
      api,
      directory,
      options: buyersOptionsSchema.parse({ match_by: ['customer_number'] }),
      mappings: {},
    });
    const result = await world.run(job);
    expect(result.counts['updated']).toBe(1);
    expect(updates).toBe(2);
    expect((await world.api.supplierBuyers.get('byr_demo')).erp_ref).toBe('C-10042');
  });

  it('spreads invitations over runs when max_per_run is below the backlog, counting only new ones', async () => {
    const job = buyersJob({ invite: { enabled: true, max_per_run: 1 } });
    const invitedPerRun: number[] = [];
    for (let run = 0; run < 3; run += 1) invitedPerRun.push((await world.run(job)).counts['invited'] ?? 0);
    expect(invitedPerRun).toEqual([1, 1, 0]);
    const sent = await invitations();
    expect(sent.map((invitation) => invitation.customer_number).sort()).toEqual(['C-10057', 'C-10063']);
  });

  it('invites unlinked ERP customers once, even when the state file is lost within the idempotency window', async () => {
    const job = buyersJob({ invite: { enabled: true } });
    const first = await world.run(job);
    expect(first.counts['invited']).toBe(2);
    const sent = await invitations();
    expect(sent.map((invitation) => invitation.customer_number).sort()).toEqual(['C-10057', 'C-10063']);

    const second = await world.run(job);
    expect(second.counts['already_invited']).toBe(2);
    expect(await invitations()).toHaveLength(2);

    // A second installation (empty state) sends the same Idempotency-Keys: the API answers with the originals.
    const other = await openOrdersWorld({ sandbox: world.sandbox });
    try {
      const fresh = buyersFlow.create(
        {
          name: 'buyers',
          connector: 'erp',
          options: buyersFlow.options.parse({ invite: { enabled: true } }),
        },
        other.deps({}),
      );
      const result = await other.run(fresh);
      expect(result.counts['invited']).toBe(2);
      expect(await invitations()).toHaveLength(2);
    } finally {
      await other.close();
    }
  });
});
