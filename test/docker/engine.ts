/**
 * A Docker engine of the test's own: Debian's dockerd on a private socket, exec root and pid file in a temporary
 * folder, so nothing collides with another engine on the machine. Its data root is kept between runs (only the base
 * image is left in it), so the stand-in base image is built once.
 */
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';
import { promisify } from 'node:util';

const run = promisify(execFile);
// Debian's docker.io first: its client matches the engine and builds with BuildKit without the buildx plugin.
const SEARCH_PATH = `/usr/sbin:/usr/bin:/sbin:/bin:/usr/local/sbin:/usr/local/bin`;
/** Kept between runs: the (stand-in) base image stays here. */
export const DATA_ROOT = process.env['SUPPLY_SYNC_DOCKER_DATA_ROOT'] ?? '/var/tmp/supply-sync-docker/data';

export interface DockerResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface Engine {
  readonly socket: string;
  readonly env: NodeJS.ProcessEnv;
  docker(
    args: readonly string[],
    options?: { timeoutMs?: number | undefined; cwd?: string | undefined },
  ): Promise<DockerResult>;
  stop(): Promise<void>;
}

function findCommand(name: string): string | undefined {
  for (const dir of SEARCH_PATH.split(':')) if (existsSync(`${dir}/${name}`)) return `${dir}/${name}`;
  return undefined;
}

/** Why an engine cannot run here, or undefined: dockerd runs as root, and is installed or can be (apt-get). */
export function engineUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return 'dockerd needs root, and this test runs as another user';
  if (findCommand('dockerd') !== undefined && findCommand('debootstrap') !== undefined) return undefined;
  if (findCommand('apt-get') !== undefined) return undefined;
  return 'dockerd or debootstrap is missing and apt-get is not there to install Debian packages docker.io, debootstrap';
}

async function installPackages(): Promise<void> {
  if (findCommand('dockerd') !== undefined && findCommand('debootstrap') !== undefined) return;
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive', PATH: SEARCH_PATH };
  await run('apt-get', ['update', '-qq'], { env, maxBuffer: 1 << 26 });
  await run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'docker.io', 'debootstrap'], {
    env,
    maxBuffer: 1 << 26,
  });
}

/** The client of Debian's docker.io (it matches the engine) when present, else the first on the path. */
function dockerClient(): string {
  return existsSync('/usr/bin/docker') ? '/usr/bin/docker' : (findCommand('docker') ?? 'docker');
}

export async function startEngine(): Promise<Engine> {
  await installPackages();
  const dir = await mkdtemp('/tmp/ssd-');
  await mkdir(DATA_ROOT, { recursive: true });
  const socket = `${dir}/docker.sock`;
  const env = { ...process.env, PATH: SEARCH_PATH, DOCKER_HOST: `unix://${socket}` };
  const args = [
    '-n',
    '10',
    findCommand('dockerd') ?? 'dockerd',
    `--host=unix://${socket}`,
    `--data-root=${DATA_ROOT}`,
    `--exec-root=${dir}/exec`,
    `--pidfile=${dir}/dockerd.pid`,
  ];
  const daemon = spawn('nice', args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  daemon.stderr?.on('data', (chunk: Buffer) => (log = (log + chunk.toString()).slice(-4000)));
  const client = dockerClient();
  const docker: Engine['docker'] = async (dockerArgs, options = {}) => {
    try {
      const { stdout, stderr } = await run(client, [...dockerArgs], {
        env,
        cwd: options.cwd,
        timeout: options.timeoutMs ?? 120_000,
        maxBuffer: 1 << 26,
      });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code?: number; stdout?: string; stderr?: string };
      return {
        code: typeof failed.code === 'number' ? failed.code : 1,
        stdout: failed.stdout ?? '',
        stderr: failed.stderr ?? '',
      };
    }
  };
  const engine: Engine = { socket, env, docker, stop: () => stopEngine(daemon, dir) };
  await waitForEngine(engine, daemon, () => log);
  return engine;
}

/** The engine answers on its socket; no event tells when it is ready, so it is asked, for up to 60 s. */
async function waitForEngine(engine: Engine, daemon: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (daemon.exitCode !== null) throw new Error(`dockerd exited with ${daemon.exitCode}:\n${log()}`);
    if ((await engine.docker(['version'], { timeoutMs: 10_000 })).code === 0) return;
    await delay(500);
  }
  await engine.stop();
  throw new Error(`dockerd did not answer on ${engine.socket} within 60 s:\n${log()}`);
}

async function stopEngine(daemon: ChildProcess, dir: string): Promise<void> {
  if (daemon.exitCode === null && daemon.signalCode === null) {
    const exited = new Promise((resolve) => daemon.once('exit', resolve));
    // `nice` execs dockerd, so the child's pid is dockerd's.
    daemon.kill('SIGTERM');
    const timer = setTimeout(() => daemon.kill('SIGKILL'), 30_000);
    await exited;
    clearTimeout(timer);
  }
  await rm(dir, { recursive: true, force: true });
}

/** A free TCP port on the host, for a published container port (none of the machine's fixed ones, 8080 included). */
export function freePort(): number {
  const found = spawnSync(
    process.execPath,
    [
      '-e',
      "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})",
    ],
    { encoding: 'utf8' },
  );
  return Number(found.stdout.trim());
}
