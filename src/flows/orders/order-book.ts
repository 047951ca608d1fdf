/** Where the orders flow remembers what it did to each order, in the state file beside the pull's checkpoint. */
import type { LedgerKey, StateStore } from '../../state/index.js';

export class OrderBook {
  readonly #appliedFlow: string;

  constructor(
    private readonly state: StateStore,
    private readonly flow: string,
    private readonly connector: string,
  ) {
    this.#appliedFlow = `${flow}:applied`;
  }

  #key(orderId: string, version: string): LedgerKey {
    return { flow: this.flow, connector: this.connector, recordKey: orderId, version };
  }

  /** The ERP order number once the order is in the ERP, else null. */
  erpNumber(orderId: string): string | null {
    return this.state.ledger.get(this.#key(orderId, 'erp-order'))?.externalRef ?? null;
  }

  recordWritten(orderId: string, erpOrderNumber: string, contentHash: string | null): void {
    this.state.transaction(() => {
      this.state.ledger.record(this.#key(orderId, 'erp-order'), erpOrderNumber);
      if (contentHash !== null) this.state.hashes.setMany(this.#appliedFlow, [[orderId, contentHash]]);
    });
  }

  appliedHash(orderId: string): string | undefined {
    return this.state.hashes.get(this.#appliedFlow, orderId);
  }

  recordApplied(orderId: string, contentHash: string): void {
    this.state.hashes.setMany(this.#appliedFlow, [[orderId, contentHash]]);
  }

  isCancelled(orderId: string): boolean {
    return this.state.ledger.has(this.#key(orderId, 'cancelled'));
  }

  recordCancelled(orderId: string): void {
    this.state.ledger.record(this.#key(orderId, 'cancelled'));
  }

  isAcknowledged(orderId: string, erpOrderNumber: string): boolean {
    return this.state.ledger.has(this.#key(orderId, `ack:${erpOrderNumber}`));
  }

  recordAcknowledged(orderId: string, erpOrderNumber: string): void {
    this.state.ledger.record(this.#key(orderId, `ack:${erpOrderNumber}`), erpOrderNumber);
  }
}
