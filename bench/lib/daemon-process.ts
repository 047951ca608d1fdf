/**
 * `supply-sync run` in a process of its own, as an operator starts it: the launcher of the compiled daemon
 * (daemon-build.ts) with a config file. Its log (JSON lines on stdout) goes to a file, as a service manager would
 * keep it; the start is awaited on the CLI's "status at <url>" note. stop() sends SIGTERM and waits for the
 * daemon's own shutdown (every event answered 2xx is stored by then), SIGKILL only past a bound.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';

export interface DaemonProcessOptions {
  launcher: string;
  config: string;
  /** Where the daemon's stdout (its log) is written. */
  logFile: string;
  /** Options for node itself, e.g. ['--cpu-prof', '--cpu-prof-dir', dir]. */
  nodeArgs?: readonly string[];
  /** More options for the CLI, e.g. ['--no-catch-up'] or ['--company', 'c001']. */
  cliArgs?: readonly string[];
  startTimeoutMs?: number;
}

export interface DaemonProcess {
  /** The operations server's base URL, e.g. http://127.0.0.1:41234. */
  opsUrl: string;
  pid: number;
  /** Date.now() when the process was spawned: where a `--cpu-prof` profile of it starts, give or take its boot. */
  spawnedAt: number;
  /** SIGTERM, then the exit code once the daemon has stopped (SIGKILL after `timeoutMs`). */
  stop(timeoutMs?: number): Promise<number | null>;
}

const RUNNING = /status at (\S+)\/status/;

export function startDaemonProcess(options: DaemonProcessOptions): Promise<DaemonProcess> {
  const log = openSync(options.logFile, 'a');
  const spawnedAt = Date.now();
  const child = spawn(
    process.execPath,
    [
      ...(options.nodeArgs ?? []),
      options.launcher,
      ...['run', '--config', options.config, '--port', '0'],
      ...(options.cliArgs ?? []),
    ],
    { stdio: ['ignore', log, 'pipe'] },
  );
  closeSync(log);
  const errors = child.stderr;
  if (errors === null) throw new Error('the daemon process has no stderr pipe');
  let stderr = '';
  errors.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  const stop = async (timeoutMs = 60_000): Promise<number | null> => {
    if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    const code = await exited;
    clearTimeout(killer);
    return code;
  };

  return new Promise((resolve, reject) => {
    const fail = (why: string): void => {
      clearTimeout(timer);
      errors.off('data', onData);
      child.kill('SIGKILL');
      reject(new Error(`the daemon did not start (${why}): ${stderr.trim().slice(-800)}`));
    };
    const timer = setTimeout(() => fail('timed out'), options.startTimeoutMs ?? 60_000);
    const onData = (): void => {
      const match = RUNNING.exec(stderr);
      if (match?.[1] === undefined) return;
      clearTimeout(timer);
      errors.off('data', onData);
      resolve({ opsUrl: match[1], pid: child.pid ?? -1, spawnedAt, stop });
    };
    errors.on('data', onData);
    child.once('exit', (code, signal) => fail(`exited with ${signal ?? String(code)}`));
  });
}
