import { afterEach, describe, expect, it } from 'vitest';
import type { Connector } from '../../../src/connector-contract/connector.js';
import type { OrderSink } from '../../../src/connector-contract/capabilities.js';
import { odataConfigSchema, odataConnectorDefinition } from '../../../connectors/odata/index.js';
import {
  startOdataEmulator,
  type EmulatedErp,
  type OdataEmulator,
} from '../../support/odata-emulator/index.js';
import { blockFor, order, PRIORITY_PASSWORD, PRIORITY_TOKEN, SAP_PASSWORD } from './fixture.js';

/**
 * Every ERP write of the odata connector (a create, a `$batch` change set, a PATCH, a cancel action) asks the
 * connector's commit gate right before its request: a refused gate sends nothing that writes, and its error is
 * what the caller sees, unchanged (as a refused COMMIT of the sql connector). Counted at the emulator.
 */
class LeadershipLostError extends Error {
  override readonly name = 'LeadershipLostError';
}

interface Opened {
  readonly emulator: OdataEmulator;
  readonly connector: Connector;
  readonly sink: OrderSink;
  /** The writing requests the emulator received (a SAP Login excepted), `$batch` parts counted on their own. */
  readonly writes: string[];
  gate: { refuse: boolean; asked: number };
}

const open: Opened[] = [];

afterEach(async () => {
  for (const opened of open.splice(0)) {
    await opened.connector.close();
    await opened.emulator.close();
  }
});

async function openGated(erp: EmulatedErp, block: Record<string, unknown> = {}): Promise<Opened> {
  const writes: string[] = [];
  const emulator = await startOdataEmulator({
    erp,
    users: erp === 'sap-b1-service-layer' ? { manager: SAP_PASSWORD } : { apiuser: PRIORITY_PASSWORD },
    tokens: [PRIORITY_TOKEN],
    inspect: (request) => {
      if (request.method === 'GET' || /^\/?Log(in|out)\b/.test(request.target)) return;
      writes.push(`${request.inBatch ? 'batch ' : ''}${request.method} ${request.target}`);
    },
  });
  const gate = { refuse: false, asked: 0 };
  const config = odataConfigSchema.parse(blockFor(erp, emulator.serviceUrl, block));
  const connector = await odataConnectorDefinition.create(config, {
    name: 'erp',
    baseDir: '.',
    mayCommit: () => {
      gate.asked += 1;
      return gate.refuse
        ? Promise.reject(new LeadershipLostError('a write of connector erp not started: the term ended'))
        : Promise.resolve();
    },
  });
  const sink = connector.capabilities.orderSink;
  if (sink === undefined) throw new Error('no orderSink');
  const opened: Opened = { emulator, connector, sink, writes, gate };
  open.push(opened);
  return opened;
}

const cases: ReadonlyArray<{ label: string; erp: EmulatedErp; block?: Record<string, unknown> }> = [
  { label: 'SAP Business One, deep insert', erp: 'sap-b1-service-layer' },
  {
    label: 'Priority, deep insert',
    erp: 'priority-rest',
    block: { entities: { orders: { write: 'deep_insert' } } },
  },
  {
    // The gate around a $batch, over Priority's entity sets with the rollback a batch needs declared: Priority
    // itself does not roll back (its preset refuses batch), but the request the gate guards is the same.
    label: '$batch change set (Priority entity sets)',
    erp: 'priority-rest',
    block: { entities: { batch_rollback: true, orders: { write: 'batch' } } },
  },
];

describe.each(cases)('odata connector commit gate: $label', ({ erp, block }) => {
  it('a refused gate sends no create; an allowed one does', async () => {
    const { sink, writes, gate } = await openGated(erp, block);
    gate.refuse = true;
    await expect(sink.writeOrder(order('gate-1'))).rejects.toThrow(LeadershipLostError);
    expect(gate.asked).toBe(1);
    expect(writes).toEqual([]);
    expect(await sink.findOrder('gate-1')).toBeNull();

    gate.refuse = false;
    const written = await sink.writeOrder(order('gate-1'));
    expect(written.status).toBe('written');
    expect(writes.length).toBeGreaterThan(0);
    expect(await sink.findOrder('gate-1')).not.toBeNull();
  });

  it('a refused gate sends no update and no cancel; an allowed one does', async () => {
    const { sink, writes, gate } = await openGated(erp, block);
    await sink.writeOrder(order('gate-2'));
    writes.length = 0;

    gate.refuse = true;
    const changed = { ...order('gate-2'), notes: 'ring twice' };
    await expect(sink.applyOrderUpdate(changed)).rejects.toThrow(LeadershipLostError);
    await expect(sink.cancelOrder('gate-2', 'the buyer withdrew it')).rejects.toThrow(LeadershipLostError);
    expect(writes).toEqual([]);

    gate.refuse = false;
    expect((await sink.applyOrderUpdate(changed)).status).toBe('updated');
    expect(writes.some((write) => write.startsWith('PATCH '))).toBe(true);
    writes.length = 0;
    expect((await sink.cancelOrder('gate-2', 'the buyer withdrew it')).status).toBe('cancelled');
    expect(writes.length).toBeGreaterThan(0);
  });
});
