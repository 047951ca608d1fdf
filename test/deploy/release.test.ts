/**
 * `npm run release` builds a tarball that runs where only Node is installed: unpacked into an empty folder, run
 * with a clean environment whose PATH holds nothing but `node`, from a working directory outside the repository.
 * The same unpacked files laid out as the Docker image's /app (its final stage's RUN line replayed on a copy) run
 * `demo` as an unprivileged user, which is how the image runs it.
 */
import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireServices } from '../connectors/services.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';

const ROOT = join(import.meta.dirname, '../..');
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(
  command: string,
  args: string[],
  options: { cwd: string; env: Record<string, string> },
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

let work: string;
let unpacked: string;
/** A PATH with nothing but node in it. */
let nodeOnly: Record<string, string>;
let sandbox: RunningSandbox;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'supply-sync-release-'));
  chmodSync(work, 0o755);
  const built = await run('npm', ['run', '--silent', 'release', '--', '--out', join(work, 'out')], {
    cwd: ROOT,
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '' },
  });
  expect(built.stderr).toBe('');
  expect(built.code).toBe(0);
  const tarball = join(work, 'out', `supply-sync-${VERSION}-${process.platform}-${process.arch}.tar.gz`);
  expect(built.stdout).toContain(tarball);
  const target = join(work, 'unpacked');
  mkdirSync(target);
  expect(spawnSync('tar', ['-xzf', tarball, '-C', target]).status).toBe(0);
  unpacked = join(target, `supply-sync-${VERSION}`);
  const bin = join(work, 'node-bin');
  mkdirSync(bin);
  symlinkSync(process.execPath, join(bin, 'node'));
  nodeOnly = { PATH: bin };
  sandbox = await startSandbox({});
}, 300_000);

afterAll(async () => {
  await sandbox.close();
});

describe('the release tarball', () => {
  it('holds compiled code, production modules with the native SQLite build, launchers, configs and the unit', () => {
    expect(readdirSync(join(work, 'unpacked'))).toEqual([`supply-sync-${VERSION}`]);
    for (const file of [
      'supply-sync',
      'supply-sync.cmd',
      'bin/supply-sync.js',
      'dist/src/cli/main.js',
      'node_modules/better-sqlite3/build/Release/better_sqlite3.node',
      'node_modules/undici/package.json',
      'config/demo.yaml',
      'deploy/supply-sync.service',
      'docs/deploy.md',
      'docs/operations.md',
      'README.md',
    ]) {
      expect(existsSync(join(unpacked, file)), file).toBe(true);
    }
    for (const devOnly of ['vitest', 'typescript', 'tsx', 'esbuild']) {
      expect(existsSync(join(unpacked, 'node_modules', devOnly)), devOnly).toBe(false);
    }
    expect(existsSync(join(unpacked, 'src'))).toBe(false);
  });

  it('holds no OData emulator or other test support', () => {
    const files = (readdirSync(unpacked, { recursive: true }) as string[]).filter(
      (file) => !file.startsWith('node_modules'),
    );
    expect(files).toContain(join('dist', 'connectors', 'odata', 'connector.js'));
    expect(files.filter((file) => /emulator|^test\b/i.test(file))).toEqual([]);
  });

  it("ships the README for the person who unpacked it (README.release.md), not the repository's", () => {
    const shipped = readFileSync(join(unpacked, 'README.md'), 'utf8');
    expect(shipped).toBe(readFileSync(join(ROOT, 'README.release.md'), 'utf8'));
    expect(shipped).not.toBe(readFileSync(join(ROOT, 'README.md'), 'utf8'));
    expect(shipped).toContain('./supply-sync demo');
  });

  it('prints the package version with only node on PATH, from outside the repository', async () => {
    const result = await run(join(unpacked, 'supply-sync'), ['--version'], { cwd: work, env: nodeOnly });
    expect(result.stderr).toBe('');
    expect(result.stdout.trim()).toBe(VERSION);
    expect(result.code).toBe(0);
  });

  it('validates an example config with only node on PATH, from outside the repository', async () => {
    const result = await run(
      join(unpacked, 'supply-sync'),
      ['config', 'validate', '--config', join(unpacked, 'config/demo.yaml')],
      {
        cwd: work,
        env: nodeOnly,
      },
    );
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(/demo\.yaml: OK \(\d+ connectors, \d+ jobs\)/);
    expect(result.code).toBe(0);
  });

  it('runs the demo with the shipped native module, then doctor against a started sandbox', async () => {
    const demo = await run(join(unpacked, 'supply-sync'), ['demo', '--port', '0', '--duration', '2'], {
      cwd: work,
      env: nodeOnly,
    });
    expect(demo.code, demo.stderr).toBe(0);
    expect(existsSync(join(unpacked, 'state/demo.db'))).toBe(true);

    const config = join(work, 'doctor.yaml');
    writeFileSync(
      config,
      [
        'api:',
        `  base_url: ${sandbox.baseUrl}`,
        `  api_key: ${sandbox.keys.supplier}`,
        'state:',
        `  path: ${join(unpacked, 'state/demo.db')}`,
        '',
      ].join('\n'),
    );
    const doctor = await run(join(unpacked, 'supply-sync'), ['doctor', '--config', config], {
      cwd: work,
      env: nodeOnly,
    });
    expect(doctor.stdout).toMatch(/^OK {3}state file {9}.*demo\.db \(schema version \d+/m);
    expect(doctor.stdout).toMatch(/^OK {3}api {16}GET \/me at http:\/\/127\.0\.0\.1:\d+\/v2: /m);
    expect(doctor.stdout).toMatch(
      /^OK {3}api proxy {10}none for 127\.0\.0\.1:\d+ \(direct: no api\.proxy and no HTTP_PROXY set\)/m,
    );
    expect(doctor.code, doctor.stdout + doctor.stderr).toBe(0);
  });
});

/** The Dockerfile's runtime stage: the instructions after the last FROM, continuation lines joined. */
function runtimeStage(): { instruction: string; args: string }[] {
  const text = readFileSync(join(ROOT, 'Dockerfile'), 'utf8').replace(/\\\n/g, ' ');
  const lines = text.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('#'));
  const last = lines.map((line) => line.startsWith('FROM ')).lastIndexOf(true);
  return lines.slice(last + 1).map((line) => {
    const [instruction = '', ...rest] = line.trim().split(/\s+/);
    return { instruction, args: rest.join(' ') };
  });
}

const UNPRIVILEGED = 65534;
const SETPRIV = spawnSync('sh', ['-c', 'command -v setpriv'], { encoding: 'utf8' }).stdout.trim();
const canSwitchUser = userInfo().uid === 0 && SETPRIV !== '';
const switchReason = 'running demo as an unprivileged user needs root and setpriv (util-linux)';
requireServices({ service: 'setpriv as root', available: canSwitchUser, reason: switchReason });

describe('the Docker image layout', () => {
  it('runs as the node user with /var/lib/supply-sync a volume it owns, and puts all demo state under /app/state', () => {
    const stage = runtimeStage();
    const args = (name: string) => stage.filter((item) => item.instruction === name).map((item) => item.args);
    expect(args('WORKDIR')).toEqual(['/app']);
    expect(args('USER')).toEqual(['node']);
    expect(args('VOLUME').join(' ')).toContain('"/var/lib/supply-sync"');
    const run = args('RUN').join(' && ');
    expect(run).toContain('chown node:node /var/lib/supply-sync');
    expect(run).toContain('ln -s /var/lib/supply-sync /app/state');
    const demo = parseYaml(readFileSync(join(ROOT, 'config/demo.yaml'), 'utf8')) as {
      state: { path: string };
      connectors: Record<string, Record<string, unknown>>;
    };
    const written = [
      demo.state.path,
      ...Object.values(demo.connectors).flatMap((block) =>
        Object.entries(block)
          .filter(([key, value]) => /_dir$/.test(key) && typeof value === 'string')
          .map(([, value]) => String(value)),
      ),
    ];
    expect(written.length).toBeGreaterThan(1);
    for (const path of written) expect(join('/app/config', path)).toMatch(/^\/app\/state\//);
  });

  it.skipIf(!canSwitchUser)(
    'runs demo as an unprivileged user in a copy laid out by the runtime stage (and fails without the state link)',
    async () => {
      const root = join(work, 'image');
      const app = join(root, 'app');
      mkdirSync(app, { recursive: true });
      for (const item of runtimeStage().filter((entry) => entry.instruction === 'COPY')) {
        const parts = item.args.split(/\s+/).filter((part) => !part.startsWith('--'));
        const source = (parts[0] ?? '').replace(/^\/app\//, '').replace(/^\.\//, '');
        const copied = spawnSync('cp', ['-a', join(unpacked, source), join(app, source)]);
        expect(copied.status, `COPY ${item.args}`).toBe(0);
      }
      const rewrite = (command: string) =>
        command
          .replaceAll('/var/lib/supply-sync', `${root}/var/lib/supply-sync`)
          .replace(/(?<![\w/.-])\/app\b/g, app)
          .replaceAll('node:node', `${UNPRIVILEGED}:${UNPRIVILEGED}`);
      for (const item of runtimeStage().filter((entry) => entry.instruction === 'RUN')) {
        const replayed = spawnSync('sh', ['-c', rewrite(item.args)], { encoding: 'utf8' });
        expect(replayed.status, replayed.stderr).toBe(0);
      }
      chownSync(app, 0, 0);
      chmodSync(app, 0o755);
      const asUnprivileged = () =>
        run(
          SETPRIV,
          [
            '--reuid',
            String(UNPRIVILEGED),
            '--regid',
            String(UNPRIVILEGED),
            '--clear-groups',
            process.execPath,
          ].concat(['bin/supply-sync.js', 'demo', '--port', '0', '--duration', '2']),
          { cwd: app, env: { ...nodeOnly, HOME: '/nonexistent' } },
        );
      const demo = await asUnprivileged();
      expect(demo.code, demo.stderr).toBe(0);
      const volume = join(root, 'var/lib/supply-sync');
      expect(lstatSync(join(app, 'state')).isSymbolicLink()).toBe(true);
      expect(lstatSync(join(volume, 'demo.db')).uid).toBe(UNPRIVILEGED);

      spawnSync('rm', [join(app, 'state')]);
      const withoutLink = await asUnprivileged();
      expect(withoutLink.code).not.toBe(0);
      expect(withoutLink.stdout + withoutLink.stderr).toMatch(/EACCES/);
    },
  );

  if (!canSwitchUser) it.skip(`skipped: ${switchReason}`, () => undefined);
});
