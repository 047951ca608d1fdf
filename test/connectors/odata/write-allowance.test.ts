import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import type { CommitAllowance } from '../../../src/connector-contract/commit-gate.js';
import type { Connector } from '../../../src/connector-contract/connector.js';
import type { OrderSink } from '../../../src/connector-contract/capabilities.js';
import { odataConfigSchema, odataConnectorDefinition } from '../../../connectors/odata/index.js';
import { startOdataEmulator, type OdataEmulator } from '../../support/odata-emulator/index.js';
import { HoldingRelay } from '../../ha/support/holding-relay.js';
import { blockFor, order, SAP_PASSWORD } from './fixture.js';

/**
 * The allowance of the commit gate reaches each write request of the odata connector: the gate is asked right
 * before every attempt (the repeat after a new SAP sign-in too), a request whose allowance is over before it leaves
 * is not sent, and one left unanswered when its allowance ends is abandoned as a failure of unknown outcome, which
 * the order sink resolves by finding the order before any new create. Counted at the emulator and at a relay.
 */
interface Opened {
  readonly emulator: OdataEmulator;
  readonly relay: HoldingRelay;
  readonly sink: OrderSink;
  /** Orders the emulator created. */
  readonly creates: string[];
  /** Each call of the gate; it answers with what `allow` gives for that call. */
  readonly asked: number[];
}

const closing: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

async function open(
  allow: (call: number, emulator: OdataEmulator) => CommitAllowance | undefined,
): Promise<Opened> {
  const creates: string[] = [];
  const emulator = await startOdataEmulator({
    erp: 'sap-b1-service-layer',
    users: { manager: SAP_PASSWORD },
    onCommit: (write) => {
      if (write.method === 'POST' && /Orders$/.test(write.path) && write.status < 300)
        creates.push(write.path);
    },
  });
  closing.push(() => emulator.close());
  const relay = await HoldingRelay.start(emulator.serviceUrl);
  closing.push(() => relay.close());
  const asked: number[] = [];
  const config = odataConfigSchema.parse(
    blockFor('sap-b1-service-layer', `${relay.baseUrl}/`, { timeout: '60s' }),
  );
  const connector: Connector = await odataConnectorDefinition.create(config, {
    name: 'erp',
    baseDir: '.',
    mayCommit: () => {
      asked.push(performance.now());
      try {
        return Promise.resolve(allow(asked.length, emulator));
      } catch (error) {
        return Promise.reject(error as Error);
      }
    },
  });
  closing.push(() => connector.close());
  const sink = connector.capabilities.orderSink;
  if (sink === undefined) throw new Error('no orderSink');
  return { emulator, relay, sink, creates, asked };
}

describe('odata connector write allowance', () => {
  it('asks the gate again for the repeat after a new sign-in', async () => {
    // The session ends between the first gate call and its POST (as a Service Layer restart would).
    const { sink, creates, asked } = await open((call, emulator) => {
      if (call === 1) emulator.expireSessions();
      return undefined;
    });
    expect((await sink.writeOrder(order('allow-1'))).status).toBe('written');
    // The POST was answered 401; the connector signed in again, asked the gate again, and sent again.
    expect(asked).toHaveLength(2);
    expect(creates).toHaveLength(1);
  });

  it('sends no repeat after a new sign-in when the gate then refuses', async () => {
    const { sink, creates, asked } = await open((call, emulator) => {
      if (call === 1) emulator.expireSessions();
      if (call === 2) throw new Error('the term ended');
      return undefined;
    });
    await expect(sink.writeOrder(order('allow-2'))).rejects.toThrow('the term ended');
    expect(asked).toHaveLength(2);
    expect(creates).toEqual([]);
  });

  it('sends nothing on an allowance already over, and asks again', async () => {
    const { sink, creates, asked } = await open((call) =>
      call === 1 ? { deadline: performance.now() - 1 } : { deadline: performance.now() + 60_000 },
    );
    expect((await sink.writeOrder(order('allow-3'))).status).toBe('written');
    expect(asked).toHaveLength(2);
    expect(creates).toHaveLength(1);
  });

  it('gives up unsent when every allowance is over before the request leaves', async () => {
    const { sink, creates, asked } = await open(() => ({ deadline: performance.now() - 1 }));
    await expect(sink.writeOrder(order('allow-4'))).rejects.toMatchObject({
      code: 'connector_unreachable',
      retryable: true,
      message: expect.stringContaining('not sent') as unknown,
    });
    expect(asked).toHaveLength(3);
    expect(creates).toEqual([]);
  });

  it('abandons a create unanswered at the end of its allowance; the next write finds it first', async () => {
    const { relay, sink, creates } = await open(() => ({ deadline: performance.now() + 500 }));
    const holding = relay.holdNext('POST', '/Orders');
    const writing = sink.writeOrder(order('allow-5'));
    const held = await holding;
    expect(held.body.toString('utf8')).toContain('allow-5');
    // The relay holds the request: the client gives up at its allowance, not at its 60 s timeout.
    await expect(writing).rejects.toMatchObject({
      code: 'connector_unreachable',
      retryable: true,
      message: expect.stringContaining('may or may not have been applied') as unknown,
    });
    await held.clientGone;
    // Delivered late anyway (a hop that does not drop it): the ERP creates it, and the next write finds it.
    expect(await relay.release()).toBe(201);
    expect(creates).toHaveLength(1);
    expect((await sink.writeOrder(order('allow-5'))).status).toBe('already_written');
    expect(creates).toHaveLength(1);
  });
});
