/**
 * Asked by a connector right before it commits a write to its system (an ERP transaction's COMMIT, a file's final
 * rename): it resolves when the write may commit and rejects when it must not, because the daemon running the
 * connector may no longer write there (it lost its leadership, or its lease has too little time left to finish).
 * The connector then rolls back and lets the error through unchanged; it needs no knowledge of why.
 */
export type CommitGate = () => Promise<void>;

/** The gate of a connector that nothing holds back (a single daemon on a state file, a one-off command). */
export const commitFreely: CommitGate = () => Promise.resolve();
