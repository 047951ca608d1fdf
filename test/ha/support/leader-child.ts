/**
 * What the HA tests' leader processes share: their options from argv, one JSON line per event on stdout, the daemon's
 * HA settings for a lease, the PostgreSQL state fenced to the term its work runs in (runInTerm) with the write gate
 * over it, and the elector that runs a term's work over and over while it leads, until the first refusal.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { stringify } from 'yaml';
import { parseConfig } from '../../../src/config/index.js';
import type { Connector } from '../../../src/connector-contract/index.js';
import { buildPluginRegistry } from '../../../src/daemon/plugins/builtin.js';
import { openConnectors } from '../../../src/daemon/services/environment-parts.js';
import { Lifecycle } from '../../../src/daemon/services/lifecycle.js';
import { WriteGate } from '../../../src/daemon/services/write-gate.js';
import {
  boundTerm,
  defaultWriteTimeoutMs,
  Elector,
  fencedSessionSettings,
  LeadershipLostError,
  runInTerm,
  termFence,
  writeMarginMs,
  type HaSettings,
  type Term,
} from '../../../src/ha/index.js';
import { systemClock } from '../../../src/shared/clock.js';
import { openPgStateStore, type PgStateStore } from '../../../src/state/index.js';

export interface LeaderChildOptions {
  readonly url: string;
  readonly instance: string;
  readonly leaseMs: number;
  readonly renewIntervalMs: number;
  readonly pollIntervalMs: number;
}

export type Say = (event: string, fields?: Record<string, unknown>) => void;

/** The JSON object the parent passes as the first argument. */
export function childOptions<T extends LeaderChildOptions>(): T {
  return JSON.parse(process.argv[2] ?? '{}') as T;
}

export function announcer(instance: string): Say {
  return (event, fields = {}) => {
    process.stdout.write(`${JSON.stringify({ event, instance, ...fields })}\n`);
  };
}

/** The settings the daemon derives from a lease length. */
export function haSettings(options: LeaderChildOptions): HaSettings {
  return {
    instance: options.instance,
    leaseMs: options.leaseMs,
    renewIntervalMs: options.renewIntervalMs,
    pollIntervalMs: options.pollIntervalMs,
    writeTimeoutMs: defaultWriteTimeoutMs(options.leaseMs),
    writeMarginMs: writeMarginMs(options.leaseMs),
  };
}

export interface FencedState {
  readonly settings: HaSettings;
  readonly state: PgStateStore;
  readonly gate: WriteGate;
}

/** The PostgreSQL state with the daemon's session limits, each write checked against the term it runs in. */
export function fencedState(options: LeaderChildOptions): FencedState {
  const settings = haSettings(options);
  const session = fencedSessionSettings(options.leaseMs);
  const state = openPgStateStore({
    url: options.url,
    clock: systemClock,
    idleInTransactionTimeoutMs: session.idle_in_transaction_session_timeout,
    statementTimeoutMs: session.statement_timeout,
    lockTimeoutMs: session.lock_timeout,
  });
  state.setFence({
    check: (port) => {
      const term = boundTerm();
      if (term === undefined) throw new LeadershipLostError('not_leader', 'work bound to no term', null);
      return termFence(term).check(port);
    },
  });
  return { settings, state, gate: new WriteGate(state, settings) };
}

export interface DaemonConnector {
  readonly connector: Connector;
  close(): Promise<void>;
}

/**
 * The connector `block` (its config as an operator writes it, `type` included) opened by the daemon's own
 * `openConnectors` from a config file's text, as `supply-sync run` opens it: the daemon wires its commit gate to
 * `gate`. The leader processes wire nothing themselves, so the tests fail if the daemon stopped passing the gate.
 */
export async function daemonConnector(
  block: Record<string, unknown>,
  gate: WriteGate,
): Promise<DaemonConnector> {
  const text = stringify({
    api: { sandbox: 'embedded' },
    state: { path: 'ha-leader.db' },
    connectors: { erp: block },
  });
  const registry = await buildPluginRegistry();
  const loaded = parseConfig('ha-leader.yaml', text, { registry });
  const silent = pino({ level: 'silent' });
  const lifecycle = new Lifecycle(() => silent);
  const connector = (await openConnectors(lifecycle, { loaded, registry }, gate)).get('erp');
  if (connector === undefined) throw new Error('connector erp was not opened');
  return { connector, close: () => lifecycle.stop({ timeoutMs: 2_000 }) };
}

export interface LeadOptions {
  readonly url: string;
  readonly settings: HaSettings;
  readonly say: Say;
  /** One pass of the term's work; a LeadershipLostError ends the term's work as `refused`. */
  pass(term: Term): Promise<void>;
  readonly pauseMs: number;
  /** The event other errors are reported as; the work goes on after them. */
  readonly errorEvent: string;
  /** What to close after the elector stops on SIGTERM. */
  onStop?(): Promise<void>;
}

/** Starts the elector; each term won runs `pass` every `pauseMs` inside runInTerm. Says started, elected, lost. */
export async function leadInTerms(options: LeadOptions): Promise<void> {
  const { say } = options;
  const work = async (term: Term): Promise<void> => {
    for (;;) {
      try {
        await options.pass(term);
      } catch (error) {
        if (error instanceof Error && error.name === 'LeadershipLostError') {
          say('refused', { epoch: term.epoch, message: error.message });
          return;
        }
        say(options.errorEvent, {
          epoch: term.epoch,
          message: error instanceof Error ? error.message : String(error),
        });
      }
      await sleep(options.pauseMs);
    }
  };
  const elector = new Elector({
    url: options.url,
    settings: options.settings,
    onElected: (epoch) => {
      say('elected', { epoch });
      const term = elector.term();
      if (term !== null) runInTerm(term, () => void work(term));
    },
    onLost: (reason) => say('lost', { reason }),
  });
  process.on('SIGTERM', () => {
    void elector
      .stop()
      .then(() => options.onStop?.())
      .then(() => process.exit(0));
  });
  await elector.start();
  say('started', { status: elector.status() });
}
