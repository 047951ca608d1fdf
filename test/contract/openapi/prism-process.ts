/** Runs Stoplight Prism as a validation proxy (`prism proxy <doc> <upstream> --errors`) on a free loopback port. */
import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from '../../support/free-port.js';

export interface RunningPrism {
  url: string;
  /** Everything Prism printed, for failure messages. */
  log(): string;
  stop(): Promise<void>;
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

export interface StartPrismOptions {
  timeoutMs?: number;
  /**
   * Called with a stop function as soon as a Prism process is spawned, before it is ready: a caller whose hook
   * times out while Prism starts can still stop it.
   */
  track?: (stop: () => Promise<void>) => void;
}

interface Attempt {
  prism?: RunningPrism;
  output: string;
}

async function attemptStart(
  script: string,
  documentPath: string,
  upstream: string,
  timeoutMs: number,
  track: (stop: () => Promise<void>) => void,
): Promise<Attempt> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [script, 'proxy', documentPath, upstream, '--errors', '--host', '127.0.0.1', '--port', String(port)],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } },
  );
  const stop = () => stopChild(child);
  track(stop);
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString('utf8');
    if (output.length > 2_000_000) output = output.slice(-1_000_000);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const ready = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs);
    const check = () => {
      if (output.includes('Prism is listening')) {
        clearTimeout(timer);
        resolve(true);
      }
    };
    child.stdout?.on('data', check);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(false);
    });
  });
  if (!ready) {
    await stop();
    return { output };
  }
  return { prism: { url: `http://127.0.0.1:${port}`, log: () => output, stop }, output };
}

/**
 * Starts Prism on a free port. The port is found free and then handed to Prism, so another process may take it
 * in between: on EADDRINUSE it tries once more with a new port.
 */
export async function startPrism(
  script: string,
  documentPath: string,
  upstream: string,
  options: StartPrismOptions = {},
): Promise<RunningPrism> {
  const timeoutMs = options.timeoutMs ?? 45_000;
  const track = options.track ?? (() => undefined);
  let attempt = await attemptStart(script, documentPath, upstream, timeoutMs, track);
  if (attempt.prism === undefined && attempt.output.includes('EADDRINUSE'))
    attempt = await attemptStart(script, documentPath, upstream, timeoutMs, track);
  if (attempt.prism === undefined)
    throw new Error(`Prism did not start within ${timeoutMs} ms:\n${attempt.output.slice(-4000)}`);
  return attempt.prism;
}
