/**
 * Parent side of the kill -9 tests of the mirror, buyers and sales-push flows: start the flow's child process
 * (child-points.ts protocol), let it be killed with SIGKILL at a seeded point, change the sandbox or source between
 * and during the runs, and repeat until enough kills landed inside runs; then one last child must converge.
 * Every other round (and each of the first `selfKillFirst` rounds) the child kills itself at a chosen instrumented
 * step; in the other rounds this process kills it a random delay after its first write.
 */
import { expect } from 'vitest';
import { runChild } from '../documents/crash-process.js';

export interface KillRoundsInput {
  child: string;
  envName: string;
  settings: Record<string, unknown>;
  random: () => number;
  /** Kills that must land inside a run (after the child passed at least one instrumented point). */
  points: number;
  /** Self-kill steps are drawn from 1..maxStep. */
  maxStep: number;
  /** The first rounds all self-kill (a flow's start-up phase gets its own share of kills); 0 by default. */
  selfKillFirst?: number;
  /** Timer kills are drawn from 0..maxDelayMs after the child's first write. */
  maxDelayMs: number;
  /** Changes made before each child starts. */
  between?: (round: number) => Promise<void>;
  /** A change made while the child runs, after a random delay of up to duringMaxMs. */
  during?: (round: number) => Promise<void>;
  duringMaxMs?: number;
}

export interface KillRoundsResult {
  /** SIGKILLs that landed after the child had passed an instrumented point. */
  killsInRuns: number;
  /** SIGKILLs that landed before the first instrumented point of the child. */
  killsBeforeRun: number;
  /** Rounds whose child converged before it was killed. */
  cleanExits: number;
  /** Process ids of the killed children. */
  killedPids: Set<number>;
  /** What each child killed inside a run printed, for a test's own tally of where the kills landed. */
  killedOutputs: string[];
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export async function killRounds(input: KillRoundsInput): Promise<KillRoundsResult> {
  const result: KillRoundsResult = {
    killsInRuns: 0,
    killsBeforeRun: 0,
    cleanExits: 0,
    killedPids: new Set(),
    killedOutputs: [],
  };
  // A round whose run ends before its kill (a step past the run's last, a timer after its end) is a clean exit; at
  // small sizes a few such rounds in a row left too few kills within three rounds a point, so six are allowed.
  for (let round = 0; result.killsInRuns < input.points && round < input.points * 6; round += 1) {
    await input.between?.(round);
    const selfKill = round < (input.selfKillFirst ?? 0) || round % 2 === 0;
    const step = 1 + Math.floor(input.random() * input.maxStep);
    const delay = Math.floor(input.random() * input.maxDelayMs);
    const duringDelay = Math.floor(input.random() * (input.duringMaxMs ?? 0));
    // Settled into a value at once, so that a failed change is reported after the child exits, not as unhandled.
    const during =
      input.during === undefined
        ? null
        : sleep(duringDelay)
            .then(() => input.during?.(round))
            .then(
              () => null,
              (error: unknown) => error,
            );
    const exit = await runChild(
      input.child,
      input.envName,
      selfKill ? { ...input.settings, killAtStep: step } : input.settings,
      selfKill ? null : delay,
    );
    const duringError = await during;
    if (duringError) throw duringError;
    expect(exit.timedOut, exit.stdout + exit.stderr).toBe(false);
    if (exit.signal === 'SIGKILL') {
      if (/^step \d+$/m.test(exit.stdout)) {
        result.killsInRuns += 1;
        result.killedOutputs.push(exit.stdout);
      } else result.killsBeforeRun += 1;
      const pid = /^pid (\d+)$/m.exec(exit.stdout)?.[1];
      if (pid !== undefined) result.killedPids.add(Number(pid));
    } else {
      expect(exit.code, exit.stdout + exit.stderr).toBe(0);
      result.cleanExits += 1;
    }
  }
  return result;
}

/** The last child, never killed, must converge. */
export async function expectConverges(
  child: string,
  envName: string,
  settings: Record<string, unknown>,
): Promise<string> {
  const final = await runChild(child, envName, settings, null);
  expect(final.code, final.stdout + final.stderr).toBe(0);
  expect(final.stdout).toContain('converged');
  return final.stdout;
}
