/**
 * `node --import tsx bench/profile-webhook-daemon.ts [connections] [seconds]`: CPU profile of the daemon process
 * (`node --cpu-prof`, sampling every 200 µs) while the external sender of the webhook-daemon benchmark loads it,
 * cut to the counted stretch and written to bench/out/profile-webhook-daemon.cpuprofile. Prints the rate, the CPU
 * time per event, the self time per category in percent, the top functions, and what the daemon logged.
 * The daemon runs compiled one file per module, so each sample still names its source file.
 */
import { copyFile, mkdir, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  profileWindow,
  summarizeProfile,
  topFunctions,
  type CategoryRule,
  type CpuProfile,
} from './lib/cpu-profile.js';
import { processCpuMs } from './lib/process-cpu.js';
import { withTempDir } from './lib/temp.js';
import { EVENT_TYPE, startWebhookDaemonRig, WEBHOOK_PATH, WEBHOOK_SECRET } from './lib/webhook-daemon-rig.js';
import { sendWebhookLoad } from './lib/webhook-load.js';

/** First match wins; a sample whose own frame matches nothing counts for its nearest matching caller. */
export const DAEMON_WEBHOOK_CATEGORIES: readonly CategoryRule[] = [
  { category: 'garbage collection', pattern: /^\(garbage collector\)/ },
  { category: 'idle (waiting for requests, the disk or the API)', pattern: /^\(idle\)/ },
  { category: 'logging (pino)', pattern: /node_modules\/(pino|sonic-boom|thread-stream)\/|src\/log\// },
  { category: 'metrics (prom-client)', pattern: /node_modules\/prom-client\/|src\/ops\/metrics/ },
  { category: 'signature check (HMAC-SHA256)', pattern: /src\/webhooks\/signature\./ },
  { category: 'envelope (UTF-8 check, JSON.parse)', pattern: /src\/webhooks\/envelope\./ },
  { category: 'body read', pattern: /src\/webhooks\/body\./ },
  { category: 'WAL sync (fdatasync scheduling)', pattern: /src\/webhooks\/wal-sync\./ },
  // The inbox's functions by name: its anonymous callbacks count for the named function that called them.
  {
    category: 'webhook dispatch (inbox read and mark, triggers)',
    pattern:
      /src\/webhooks\/dispatcher\.|^(pending|markDispatched|listUndispatched|fromRow) .*(src\/state\/inbox|src\/webhooks\/(state|wal-synced)-inbox)\./,
  },
  {
    category: 'inbox insert (group commit, SQLite)',
    pattern:
      /src\/webhooks\/group-commit\.|^(insertMany|prepareInsertGroup|asBuffer) .*(src\/state\/inbox|src\/webhooks\/(state|wal-synced)-inbox)\./,
  },
  { category: 'receiver (other)', pattern: /src\/webhooks\/(?!(state|wal-synced)-inbox\.)/ },
  { category: 'ops server routing and access check', pattern: /src\/ops\// },
  {
    category: 'orders job runs (scheduler, engine, flow, ERP)',
    pattern: /src\/(scheduler|engine|flows|kit)\/|connectors\/|src\/daemon\/jobs\//,
  },
  {
    category: 'API client (undici) for the job runs',
    pattern: /src\/client\/|node_modules\/undici\/|node:internal\/deps\/undici/,
  },
  { category: 'state store (runs, cursors)', pattern: /src\/state\/(?!inbox\.)/ },
  { category: 'daemon services (other)', pattern: /src\/daemon\// },
  {
    category: 'node:http and sockets',
    pattern:
      /node:_http_|node:net|node:internal\/streams|node:internal\/stream_base|^parserOnHeadersComplete /,
  },
];

const connections = Number(process.argv[2] ?? 10);
const seconds = Number(process.argv[3] ?? 20);
const outDir = fileURLToPath(new URL('./out/', import.meta.url));
await mkdir(outDir, { recursive: true });
await withTempDir('profile-webhook-daemon', async (dir) => {
  const profileDir = join(dir, 'profile');
  const rig = await startWebhookDaemonRig(dir, {
    log: (line) => process.stderr.write(`${line}\n`),
    nodeArgs: ['--cpu-prof', '--cpu-prof-dir', profileDir, '--cpu-prof-interval', '200'],
  });
  let cpuBefore: number | undefined;
  try {
    cpuBefore = processCpuMs(rig.daemon.pid);
    const load = await sendWebhookLoad({
      origin: rig.daemon.opsUrl,
      path: WEBHOOK_PATH,
      connections,
      durationMs: seconds * 1000,
      warmupMs: 2_000,
      secret: WEBHOOK_SECRET,
      eventType: EVENT_TYPE,
      data: rig.eventData,
      prefix: `evt_prof_${Date.now().toString(36)}_`,
      acceptedFile: join(dir, 'accepted.txt'),
    });
    const cpuAfter = processCpuMs(rig.daemon.pid);
    await rig.daemon.stop();
    const [name] = (await readdir(profileDir)).filter((file) => file.endsWith('.cpuprofile'));
    if (name === undefined) throw new Error('the daemon wrote no CPU profile');
    const file = join(outDir, 'profile-webhook-daemon.cpuprofile');
    await copyFile(join(profileDir, name), file);
    const whole = JSON.parse(await readFile(file, 'utf8')) as CpuProfile;
    const profile = profileWindow(
      whole,
      load.startedAt - rig.daemon.spawnedAt,
      load.endedAt - rig.daemon.spawnedAt,
    );
    const cpuMs = cpuBefore === undefined || cpuAfter === undefined ? Number.NaN : cpuAfter - cpuBefore;
    process.stdout.write(
      `${connections} connections: ${load.ok} events answered 2xx in ${(load.elapsedMs / 1000).toFixed(1)} s ` +
        `(${load.okPerSecond.toFixed(0)} events/s, p50 ${load.latencyMs.p50} ms, p99 ${load.latencyMs.p99} ms), ` +
        `${load.non2xx} non-2xx, ${load.errors} errors; daemon CPU ${((cpuMs * 1000) / Math.max(1, load.sent)).toFixed(0)} µs per event ` +
        `(warm-up included); ${file}\n`,
    );
    for (const share of summarizeProfile(profile, DAEMON_WEBHOOK_CATEGORIES))
      process.stdout.write(`${share.percent.toFixed(1).padStart(5)} %  ${share.category}\n`);
    process.stdout.write('top functions (self time):\n');
    for (const share of topFunctions(profile, 30))
      process.stdout.write(`${share.percent.toFixed(1).padStart(5)} %  ${share.category}\n`);
    const messages = new Map<string, number>();
    for (const line of (await readFile(rig.logFile, 'utf8')).split('\n')) {
      if (line === '') continue;
      const { msg } = JSON.parse(line) as { msg?: string };
      messages.set(msg ?? '(no msg)', (messages.get(msg ?? '(no msg)') ?? 0) + 1);
    }
    process.stdout.write('daemon log lines, whole run:\n');
    for (const [msg, count] of [...messages].sort((a, b) => b[1] - a[1]).slice(0, 15))
      process.stdout.write(`${String(count).padStart(8)}  ${msg}\n`);
  } finally {
    await rig.close();
  }
});
