/** The --state file: the saved state loaded (or a fresh one seeded) at start, coalesced saves, the last save. */
import type { CreatedAccount, SandboxDomain } from '../http/types.js';
import { createDemoClients } from '../platform/keys.js';
import { secretString } from '../platform/ids.js';
import type { StateFile } from '../platform/persistence.js';
import type { PlatformState } from '../platform/state.js';
import type { SandboxAccounts } from './accounts.js';

// Coalesces saves: a small domain snapshot is several hundred kB, so at most five saves a second under load. A
// large one (a million journal lines is over a gigabyte of JSON) takes seconds to write, so the wait after a save
// grows with it: at most a fifth of the time goes to saving.
const SAVE_DELAY_MS = 200;
const SAVE_SHARE = 5;

/** Restores the saved platform and domain state, or seeds the demo clients and the signing secrets. */
export function restoreOrSeed(
  state: PlatformState,
  file: StateFile | null,
  worlds: { domain: SandboxDomain; accounts: SandboxAccounts },
  seed: string | undefined,
  now: number,
): void {
  const saved = file?.load() ?? null;
  if (saved) {
    state.restore(saved.platform);
    state.blobs = saved.blobs;
    if (saved.domain !== undefined && saved.domain !== null) worlds.domain.restore(saved.domain);
    worlds.accounts.restore({
      accounts: saved.created.accounts as CreatedAccount[],
      worlds: saved.created.worlds,
    });
  } else {
    state.clients = createDemoClients(seed, now);
    state.jwtSecret = secretString(48, seed, 'jwt');
    state.urlSecret = secretString(48, seed, 'url');
  }
}

/** Writes the whole state to the file; without a file every call does nothing. */
export class StateSaver {
  private timer: NodeJS.Timeout | null = null;
  private delayMs = SAVE_DELAY_MS;

  constructor(
    private readonly file: StateFile | null,
    private readonly state: PlatformState,
    private readonly domain: () => SandboxDomain | null,
    private readonly accounts: () => SandboxAccounts | null,
  ) {}

  /** A save soon, unless one is already due. */
  schedule(): void {
    if (this.file && !this.timer) this.timer = setTimeout(() => this.save(), this.delayMs);
  }

  save(): void {
    this.timer = null;
    if (!this.file) return;
    const started = performance.now();
    const domain = this.domain();
    this.file.save(
      this.state.snapshot(),
      domain?.liveSnapshot?.() ?? domain?.snapshot(),
      this.accounts()?.saved(),
    );
    this.delayMs = Math.max(SAVE_DELAY_MS, (performance.now() - started) * (SAVE_SHARE - 1));
  }

  /** The last save, then the file is closed. */
  close(): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.file) {
      this.save();
      this.file.close();
    }
  }
}
