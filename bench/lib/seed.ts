/** Fills a sandbox through its control plane, in chunks so no single action runs for long. */
import type { SandboxControl } from '../../src/sandbox/index.js';

type HasControl = { control: SandboxControl };

export async function seedOrders(sandbox: HasControl, count: number, chunk = 200): Promise<void> {
  for (let done = 0; done < count; done += chunk) {
    await sandbox.control.action('buyer_send_order', { count: Math.min(chunk, count - done) });
  }
}

/** approve_journal_lines makes exactly `count` lines approved for export (at least 3 per call). */
export async function seedJournalLines(
  sandbox: HasControl,
  count: number,
  chunk: number,
  onProgress?: (done: number) => void,
): Promise<void> {
  for (let done = 0; done < count;) {
    let size = Math.min(chunk, count - done);
    // The action needs at least 3 lines; fold a remainder under 3 into this chunk.
    if (count - done - size > 0 && count - done - size < 3) size = count - done;
    await sandbox.control.action('approve_journal_lines', { count: size });
    done += size;
    onProgress?.(done);
  }
}
