/**
 * `node --import tsx bench/profile-office.ts [companies] [seconds]`: CPU profile of an idle office process
 * (`node --cpu-prof`) of the office benchmark's companies, written to bench/out/profile-office.cpuprofile; prints the
 * CPU used per second of idle and the functions that took it (self time, the idle thread excluded).
 */
import { copyFile, mkdir, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { profileWindow, topFunctions, type CpuProfile } from './lib/cpu-profile.js';
import { buildDaemon } from './lib/daemon-build.js';
import { startDaemonProcess } from './lib/daemon-process.js';
import { processCpuMs } from './lib/process-cpu.js';
import { startSandboxProcess } from './lib/sandbox-process.js';
import { withTempDir } from './lib/temp.js';
import { writeOffice } from './office.js';

const OUT = fileURLToPath(new URL('./out/', import.meta.url));
const companies = Number(process.argv[2] ?? 300);
const seconds = Number(process.argv[3] ?? 20);

await withTempDir('supply-sync-profile-office-', async (dir) => {
  const sandbox = await startSandboxProcess();
  try {
    const config = await writeOffice(dir, sandbox, companies);
    const launcher = await buildDaemon();
    const profiles = join(dir, 'profiles');
    const daemon = await startDaemonProcess({
      launcher,
      config,
      logFile: join(dir, 'office.log'),
      nodeArgs: ['--cpu-prof', '--cpu-prof-dir', profiles],
      cliArgs: ['--no-catch-up'],
      startTimeoutMs: 120_000,
    });
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const from = Date.now();
    const before = processCpuMs(daemon.pid) ?? NaN;
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    const used = (processCpuMs(daemon.pid) ?? NaN) - before;
    const to = Date.now();
    await daemon.stop();
    const [file] = (await readdir(profiles)).filter((name) => name.endsWith('.cpuprofile'));
    if (file === undefined) throw new Error('no profile was written');
    await mkdir(OUT, { recursive: true });
    await copyFile(join(profiles, file), join(OUT, 'profile-office.cpuprofile'));
    const profile = JSON.parse(await readFile(join(profiles, file), 'utf8')) as CpuProfile;
    const window = profileWindow(profile, from - daemon.spawnedAt, to - daemon.spawnedAt);
    console.log(
      `${companies} companies idle ${seconds} s: ${((used / (seconds * 1000)) * 100).toFixed(2)} % of a core`,
    );
    for (const row of topFunctions(window, 40))
      console.log(
        `${row.percent.toFixed(1).padStart(6)} %  ${row.ms.toFixed(0).padStart(6)} ms  ${row.category}`,
      );
  } finally {
    await sandbox.close();
  }
});
