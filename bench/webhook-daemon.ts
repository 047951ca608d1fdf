/**
 * Webhook ingest through the daemon as operators run it: `supply-sync run` (compiled, in its own process) with the
 * orders job, which order.created events trigger, against a sandbox in a third process standing in for the API.
 * An external sender (autocannon, in a fourth process) posts signed order.created events, each with a new id and a
 * fresh signature, at 1, 10 and 64 connections. Baseline: a bare node:http server process (read the body, 204)
 * loaded by the same sender the same way in the same run, the two taking turns. After the runs the daemon is
 * stopped and the inbox is read: every event answered 2xx must be there, exactly once.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { startBareProcess } from './lib/bare-process.js';
import { processCpuMs } from './lib/process-cpu.js';
import { check, measured } from './lib/result.js';
import { formatNumber, meets, ratio, spreadOf, spreadText } from './lib/stats.js';
import { withTempDir } from './lib/temp.js';
import type { BenchOptions, BenchResult, Benchmark } from './lib/types.js';
import {
  EVENT_TYPE,
  startWebhookDaemonRig,
  WEBHOOK_PATH,
  WEBHOOK_SECRET,
  type WebhookDaemonRig,
} from './lib/webhook-daemon-rig.js';
import { sendWebhookLoad, type WebhookLoadResult } from './lib/webhook-load.js';

export const webhookDaemon: Benchmark = {
  name: 'webhook-daemon',
  title: 'Webhook ingest through the daemon process (external sender)',
  target: 'ratio >= 0.4 of a bare server at 10 connections',
  run,
};

const CONNECTIONS = [1, 10, 64] as const;
/** The headline load: the one the target is stated for. */
const HEADLINE = 10;

interface Sample {
  round: number;
  connections: number;
  server: 'daemon' | 'bare';
  load: WebhookLoadResult;
  /** CPU time the daemon and the sandbox used during the run (warm-up included), when it can be read. */
  daemonCpuMs: number | undefined;
  sandboxCpuMs: number | undefined;
}

interface InboxCheck {
  /** Distinct event ids answered 2xx (each id is sent once). */
  accepted: number;
  /** Of those, the ids found in the inbox: each at most once, as event_id is the inbox's key. */
  storedAccepted: number;
  /** Rows of this benchmark's events, accepted or not (answers lost when a run's connections closed). */
  storedAll: number;
}

const cpuDelta = (pid: number, before: number | undefined): number | undefined => {
  const after = processCpuMs(pid);
  return before === undefined || after === undefined ? undefined : after - before;
};

/** Reads the inbox after the daemon has stopped: which of the ids answered 2xx it holds. */
async function checkInbox(stateFile: string, acceptedFile: string, prefix: string): Promise<InboxCheck> {
  const text = await readFile(acceptedFile, 'utf8').catch((error: unknown) => {
    if (error instanceof Error && 'code' in error && error.code === 'ENOENT') return '';
    throw error;
  });
  const accepted = new Set(text.split('\n').filter((line) => line !== ''));
  const db = new Database(stateFile, { readonly: true, fileMustExist: true });
  try {
    const stored = new Set<string>();
    const rows = db
      .prepare('SELECT event_id FROM inbox WHERE event_id >= ? AND event_id < ?')
      .pluck()
      .iterate(prefix, `${prefix}\uffff`) as IterableIterator<string>;
    for (const id of rows) stored.add(id);
    let storedAccepted = 0;
    for (const id of accepted) if (stored.has(id)) storedAccepted += 1;
    return { accepted: accepted.size, storedAccepted, storedAll: stored.size };
  } finally {
    db.close();
  }
}

const median = (values: readonly number[]): number => spreadOf(values).median;

export async function run(options: BenchOptions): Promise<BenchResult> {
  const startedAt = performance.now();
  const rounds = options.quick ? 1 : 3;
  const durationMs = options.quick ? 1_500 : 5_000;
  const warmupMs = options.quick ? 300 : 1_000;

  return withTempDir('webhook-daemon', async (dir) => {
    const bare = await startBareProcess();
    let rig: WebhookDaemonRig | undefined;
    try {
      rig = await startWebhookDaemonRig(dir, options);
      const { daemon, sandbox, eventData: data } = rig;
      const prefix = `evt_wd_${Date.now().toString(36)}_`;
      const acceptedFile = join(dir, 'accepted.txt');
      const samples: Sample[] = [];
      const measure = async (round: number, connections: number, server: Sample['server']): Promise<void> => {
        const origin = server === 'daemon' ? daemon.opsUrl : bare.origin;
        const daemonBefore = processCpuMs(daemon.pid);
        const sandboxBefore = processCpuMs(sandbox.pid);
        const load = await sendWebhookLoad({
          origin,
          path: WEBHOOK_PATH,
          connections,
          durationMs,
          warmupMs,
          secret: WEBHOOK_SECRET,
          eventType: EVENT_TYPE,
          data,
          prefix: `${prefix}${server === 'daemon' ? 'd' : 'b'}${round}c${connections}_`,
          acceptedFile: server === 'daemon' ? acceptedFile : join(dir, 'accepted-bare.txt'),
        });
        samples.push({
          round,
          connections,
          server,
          load,
          daemonCpuMs: cpuDelta(daemon.pid, daemonBefore),
          sandboxCpuMs: cpuDelta(sandbox.pid, sandboxBefore),
        });
        options.log(
          `  round ${round + 1}/${rounds}, ${connections} connection(s), ${server}: ${formatNumber(load.okPerSecond)}/s`,
        );
      };
      for (let round = 0; round < rounds; round++) {
        for (const connections of CONNECTIONS) {
          // The two servers take turns going first, so a drift in the machine's load favours neither.
          const order: Array<Sample['server']> = round % 2 === 0 ? ['bare', 'daemon'] : ['daemon', 'bare'];
          for (const server of order) await measure(round, connections, server);
        }
      }

      const exitCode = await daemon.stop();
      const inbox = await checkInbox(rig.stateFile, acceptedFile, prefix);

      const pick = (connections: number, server: Sample['server']): Sample[] =>
        samples.filter((s) => s.connections === connections && s.server === server);
      const perSecond = (list: readonly Sample[]): number[] => list.map((s) => s.load.okPerSecond);
      const roundRatios = (connections: number): number[] => {
        const bareByRound = new Map(pick(connections, 'bare').map((s) => [s.round, s.load.okPerSecond]));
        return pick(connections, 'daemon').map((s) =>
          ratio(s.load.okPerSecond, bareByRound.get(s.round) ?? 0),
        );
      };
      const figureAt = (connections: number): { daemon: number; bare: number; ratio: number } => {
        const daemonRate = median(perSecond(pick(connections, 'daemon')));
        const bareRate = median(perSecond(pick(connections, 'bare')));
        return { daemon: daemonRate, bare: bareRate, ratio: ratio(daemonRate, bareRate) };
      };
      const headline = figureAt(HEADLINE);
      const daemonSamples = samples.filter((s) => s.server === 'daemon');
      const failures = daemonSamples.reduce((sum, s) => sum + s.load.non2xx + s.load.errors, 0);
      const everyAcceptedStored = inbox.storedAccepted === inbox.accepted && inbox.accepted > 0;

      const details: Record<string, number | string> = {};
      for (const connections of CONNECTIONS) {
        const at = figureAt(connections);
        const label = `${connections} connection${connections === 1 ? '' : 's'}`;
        details[`${label}: daemon events/s, median`] = at.daemon;
        details[`${label}: bare requests/s, median`] = at.bare;
        details[`${label}: ratio (medians)`] = at.ratio;
        details[`${label}: ratio per round`] = spreadText(spreadOf(roundRatios(connections)));
        const latency = pick(connections, 'daemon').map((s) => s.load.latencyMs);
        const bareLatency = pick(connections, 'bare').map((s) => s.load.latencyMs);
        details[`${label}: daemon p50 / p99 to 2xx (ms), medians`] =
          `${median(latency.map((l) => l.p50)).toFixed(2)} / ${median(latency.map((l) => l.p99)).toFixed(2)}`;
        details[`${label}: bare p50 / p99 (ms), medians`] =
          `${median(bareLatency.map((l) => l.p50)).toFixed(2)} / ${median(bareLatency.map((l) => l.p99)).toFixed(2)}`;
        const cpu = pick(connections, 'daemon').flatMap((s) =>
          s.daemonCpuMs === undefined || s.sandboxCpuMs === undefined
            ? []
            : [{ daemon: s.daemonCpuMs, sandbox: s.sandboxCpuMs }],
        );
        if (cpu.length > 0) {
          const wallMs = durationMs + warmupMs;
          details[`${label}: daemon / sandbox CPU, share of one core while loaded`] =
            `${(median(cpu.map((c) => c.daemon)) / wallMs).toFixed(2)} / ${(median(cpu.map((c) => c.sandbox)) / wallMs).toFixed(2)}`;
          details[`${label}: daemon CPU per event (µs)`] = median(
            pick(connections, 'daemon').flatMap((s) =>
              s.daemonCpuMs === undefined ? [] : [(s.daemonCpuMs * 1000) / Math.max(1, s.load.sent)],
            ),
          );
        }
      }
      details['events answered 2xx (warm-up included) / found in the inbox'] =
        `${inbox.accepted} / ${inbox.storedAccepted}`;
      details['inbox rows of the runs (incl. answers lost as a run closed its connections)'] =
        inbox.storedAll;
      details['daemon exit code after SIGTERM'] = exitCode === null ? 'none (killed)' : exitCode;
      details.load = `${rounds} round(s) of ${durationMs / 1000} s (after ${warmupMs / 1000} s of warm-up) per server and connection count, the servers taking turns; autocannon in its own process, one request in flight per connection, every event a new id, signed (t=, v1= HMAC-SHA256) over its exact bytes`;

      return measured({
        name: webhookDaemon.name,
        title: webhookDaemon.title,
        startedAt,
        figure: {
          label: `daemon at ${HEADLINE} connections, median`,
          value: headline.daemon,
          unit: 'events/s',
        },
        baseline: {
          label: `bare node:http process (read body, 204) at ${HEADLINE} connections, median`,
          value: headline.bare,
          unit: 'requests/s',
        },
        ratio: headline.ratio,
        checks: [
          check(
            `ratio >= 0.4 at ${HEADLINE} connections`,
            headline.ratio,
            '',
            meets(headline.ratio, '>=', 0.4),
          ),
          check(
            'every 2xx event in the inbox, exactly once',
            inbox.storedAccepted,
            'events',
            everyAcceptedStored,
          ),
          check('no non-2xx or connection errors from the daemon', failures, 'failures', failures === 0),
        ],
        details,
        notes: [
          'The daemon is the compiled CLI (`bin/supply-sync.js run`, the layout `npm run release` ships) with the orders job and the demo ERP; the sandbox runs in a process of its own, as the API is elsewhere, and serves the orders job that stored order.created events trigger (the webhook dispatcher starts a pass at most every 200 ms, and the scheduler keeps one run of a job going at a time, with at most one more to follow). The daemon logs at info as JSON lines into a file.',
          'Each connection keeps one request in flight (a closed loop), so the rate at 1 connection is one over the time to 2xx: for the daemon that includes the group commit and the fdatasync of the inbox before the answer, which the bare server does not do.',
          'On a 2-core machine the sender, the server under test and the sandbox share the cores; the CPU shares in the details say who used them.',
        ],
      });
    } finally {
      await rig?.close();
      await bare.close();
    }
  });
}
