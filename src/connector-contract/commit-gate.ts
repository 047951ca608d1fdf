/**
 * Asked by a connector right before it commits a write to its system (an ERP transaction's COMMIT, a file's final
 * rename, a request to an ERP's API): it resolves when the write may commit and rejects when it must not, because
 * the daemon running the connector may no longer write there (it lost its leadership, or its lease has too little
 * time left to finish). The connector then rolls back (or does not send) and lets the error through unchanged; it
 * needs no knowledge of why.
 *
 * It may resolve with an allowance: the moment the write's time ends. A connector whose write cannot be rolled back
 * (an HTTP request) cuts the write off there; one that commits a transaction may ignore it.
 */
export type CommitGate = () => Promise<CommitAllowance | void | undefined>;

/** How long a write the gate admitted may take. */
export interface CommitAllowance {
  /**
   * performance.now() (this process's monotonic clock, which runs on while the process is stopped) at which the
   * write's time ends: a request not answered by then must be abandoned, and one not sent by then must not be sent.
   */
  readonly deadline: number;
}

/** The gate of a connector that nothing holds back (a single daemon on a state file, a one-off command). */
export const commitFreely: CommitGate = () => Promise.resolve();
