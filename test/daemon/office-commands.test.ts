/**
 * The office's own command queue (src/daemon/office/office-commands.ts) on a real SQLite state file: one office holds
 * it, each command is carried out once and recorded with its outcome, and a command an office was carrying out when
 * it stopped is recorded interrupted, not carried out again.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ControlError } from '../../src/daemon/control/actions.js';
import { openOfficeCommands, type OfficeCommands } from '../../src/daemon/office/office-commands.js';
import { systemClock } from '../../src/shared/clock.js';
import { openStateStore, StateLockedError, type QueuedCommand } from '../../src/state/index.js';

let dir: string;
let file: string;
let office: OfficeCommands | undefined;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'supply-sync-office-queue-'));
  file = join(dir, 'office.db');
});

afterEach(async () => {
  await office?.close();
  office = undefined;
  rmSync(dir, { recursive: true, force: true });
});

/** Queues commands as the CLI does, on a connection of its own; `running` ones as a stopped office left them. */
function queue(commands: Array<{ kind: string; running?: boolean }>): number[] {
  const state = openStateStore({ file, clock: systemClock, lock: false });
  try {
    return commands.map(({ kind, running }) => {
      const id = state.commands.enqueue({ kind, args: {}, fingerprint: '', requestedBy: 'cli:test@host' });
      if (running === true) state.commands.claim(id);
      return id;
    });
  } finally {
    state.close();
  }
}

function read(id: number): QueuedCommand | null {
  const state = openStateStore({ file, clock: systemClock, readOnly: true });
  try {
    return state.commands.get(id);
  } finally {
    state.close();
  }
}

/** Waits (bounded) until every command has finished, reading the state as the CLI does. */
async function finished(ids: readonly number[]): Promise<QueuedCommand[]> {
  for (let round = 0; round < 200; round++) {
    const commands = ids.map(read);
    if (commands.every((command) => command?.status === 'done' || command?.status === 'failed')) {
      return commands as QueuedCommand[];
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`commands ${ids.join(', ')} did not finish within 5 s`);
}

describe("the office's command queue", () => {
  it('carries each command out once, records its outcome, and refuses a second office', async () => {
    const [interrupted] = queue([{ kind: 'config.reload', running: true }]);
    office = openOfficeCommands(file, systemClock);
    expect(() => openOfficeCommands(file, systemClock)).toThrow(StateLockedError);
    const carriedOut: string[] = [];
    office.serve({
      logger: pino({ level: 'silent' }),
      limits: { ttlMs: 60_000, maxPendingPerKind: 10 },
      pollMs: 20,
      carryOut: ({ kind, requestedBy }) => {
        carriedOut.push(`${kind} by ${requestedBy}`);
        if (kind === 'config.reload') return Promise.resolve({ started: ['west'] });
        if (kind === 'broken') return Promise.reject(new Error('disk on fire'));
        return Promise.reject(
          new ControlError('unknown_command', `"${kind}" is not a command of the office`),
        );
      },
    });
    const ids = queue([{ kind: 'config.reload' }, { kind: 'jobs.pause' }, { kind: 'broken' }]);
    const [reload, unknown, broken] = await finished(ids);
    expect(reload).toMatchObject({
      status: 'done',
      result: { started: ['west'] },
      requestedBy: 'cli:test@host',
    });
    expect(unknown).toMatchObject({ status: 'failed', errorCode: 'unknown_command' });
    expect(broken).toMatchObject({ status: 'failed', errorCode: 'command_failed', error: 'disk on fire' });
    expect(read(interrupted as number)).toMatchObject({ status: 'failed', errorCode: 'interrupted' });
    expect(carriedOut).toEqual([
      'config.reload by cli:test@host',
      'jobs.pause by cli:test@host',
      'broken by cli:test@host',
    ]);
  });
});
