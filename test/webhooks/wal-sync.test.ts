import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WalFileSyncer } from '../../src/webhooks/wal-sync.js';

type Done = (error: NodeJS.ErrnoException | null) => void;

/** A sync call the test completes by hand, to see exactly which callers each sync answers. */
function heldSyncs(): { datasync: (fd: number, done: Done) => void; pending: Done[] } {
  const pending: Done[] = [];
  return { datasync: (_fd, done) => void pending.push(done), pending };
}

/** Lets promise callbacks run. */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function track(promise: Promise<void>): { state: 'pending' | 'resolved' | 'rejected' } {
  const result: { state: 'pending' | 'resolved' | 'rejected' } = { state: 'pending' };
  promise.then(
    () => (result.state = 'resolved'),
    () => (result.state = 'rejected'),
  );
  return result;
}

describe('WalFileSyncer', () => {
  let dir: string;
  let walPath: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'supply-sync-wal-sync-'));
    walPath = join(dir, 'state.db-wal');
    writeFileSync(walPath, 'frames');
  });

  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('syncs the real file and resolves', async () => {
    const syncer = new WalFileSyncer(walPath);
    await Promise.all([syncer.durable(), syncer.durable()]);
    await syncer.durable();
    expect(syncer.syncCount).toBeGreaterThanOrEqual(2);
    await syncer.close();
    await expect(syncer.durable()).rejects.toThrow(/closed/);
  });

  it('never answers a caller with a sync that was already running when it asked', async () => {
    const syncs = heldSyncs();
    const syncer = new WalFileSyncer(walPath, { datasync: syncs.datasync });
    const first = track(syncer.durable());
    expect(syncs.pending).toHaveLength(1);
    // These callers committed after the running sync started: they must wait for a later one, together.
    const second = track(syncer.durable());
    const third = track(syncer.durable());
    expect(syncs.pending).toHaveLength(1);

    syncs.pending[0]?.(null);
    await settle();
    expect(first.state).toBe('resolved');
    expect([second.state, third.state]).toEqual(['pending', 'pending']);
    expect(syncs.pending).toHaveLength(2);

    syncs.pending[1]?.(null);
    await settle();
    expect([second.state, third.state]).toEqual(['resolved', 'resolved']);
    expect(syncer.syncCount).toBe(2);
    await syncer.close();
  });

  it('starts up to the allowed number of syncs at once', async () => {
    const syncs = heldSyncs();
    const syncer = new WalFileSyncer(walPath, { datasync: syncs.datasync, concurrentSyncs: 2 });
    const answers = [track(syncer.durable()), track(syncer.durable()), track(syncer.durable())];
    expect(syncs.pending).toHaveLength(2);
    syncs.pending[1]?.(null);
    await settle();
    expect(answers.map((a) => a.state)).toEqual(['pending', 'resolved', 'pending']);
    syncs.pending[0]?.(null);
    syncs.pending[2]?.(null);
    await settle();
    expect(answers.map((a) => a.state)).toEqual(['resolved', 'resolved', 'resolved']);
    await syncer.close();
  });

  it('treats a failed sync as final: later callers are refused, even if the disk seems to recover', async () => {
    const syncs = heldSyncs();
    const syncer = new WalFileSyncer(walPath, { datasync: syncs.datasync });
    const failed = track(syncer.durable());
    const queued = track(syncer.durable());
    expect(syncer.failedWith).toBeNull();
    syncs.pending[0]?.(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' }));
    await settle();
    expect([failed.state, queued.state]).toEqual(['rejected', 'rejected']);
    // Reported for readiness (the daemon's /readyz), not only to the callers that were waiting.
    expect(syncer.failedWith).toMatch(/EIO/);
    await expect(syncer.durable()).rejects.toThrow(/EIO/);
    expect(syncs.pending).toHaveLength(1);
    await syncer.close();
  });

  it('closes only after the running sync has finished', async () => {
    const syncs = heldSyncs();
    const syncer = new WalFileSyncer(walPath, { datasync: syncs.datasync });
    const answer = track(syncer.durable());
    let closed = false;
    const closing = syncer.close().then(() => (closed = true));
    await settle();
    expect(closed).toBe(false);
    syncs.pending[0]?.(null);
    await closing;
    expect(answer.state).toBe('resolved');
  });
});
