/** Moved to src/kit/atomic-file.ts, where connectors can use it too; kept for the flows that import it here. */
export * from '../../kit/atomic-file.js';
