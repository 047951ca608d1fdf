/**
 * The setup the pull's diagnostic scripts share: a sandbox in another process seeded with orders, every page of
 * GET /supplier/orders (200 a page) recorded once, and a bare server in this process replaying those pages (as in
 * the pull benchmark's second pair), with a temporary folder for state files.
 */
import { plainLoop, replayServer } from './pull-runs.js';
import { startSandboxProcess } from './sandbox-process.js';
import { seedOrders } from './seed.js';
import { withTempDir } from './temp.js';

export interface ReplayedOrders {
  /** A temporary folder, removed afterwards. */
  readonly dir: string;
  /** The supplier key the pages were read with (the replay server ignores it). */
  readonly key: string;
  /** Each page's body as the sandbox sent it, by the cursor that asked for it ('' for the first). */
  readonly recorded: ReadonlyMap<string, string>;
  /** The replay server's origin, and the API base address on it. */
  readonly origin: string;
  readonly baseUrl: string;
}

/** Runs `use` with `orders` seeded, recorded and replayed; closes the replay server and the sandbox after. */
export async function withReplayedOrders<T>(
  tag: string,
  orders: number,
  use: (replayed: ReplayedOrders) => Promise<T>,
): Promise<T> {
  const sandbox = await startSandboxProcess();
  try {
    await seedOrders(sandbox, orders);
    return await withTempDir(tag, async (dir) => {
      const key = sandbox.keys.supplier;
      const recorded = new Map<string, string>();
      await plainLoop(sandbox.origin, key, recorded);
      const replay = await replayServer(recorded);
      try {
        return await use({ dir, key, recorded, origin: replay.origin, baseUrl: `${replay.origin}/v2` });
      } finally {
        await replay.close();
      }
    });
  } finally {
    await sandbox.close();
  }
}
