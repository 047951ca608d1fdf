/**
 * The office report's days among several office processes (OfficeDuties in the office's database): a day's report
 * is queued here only once this process holds the day; a report queued here goes out only while it still does
 * (after a freeze or a lapse of its heartbeats another process may have taken the day over, and then this one
 * withdraws its copy); once every channel's message went out or was given up, the day is recorded done so that no
 * one takes it over. Without several processes (ALONE) every day is this process's.
 */
import type { Logger } from 'pino';
import type { NotificationQueue } from '../../state/notifications.js';

/** Held: this process holds the day (`token` names its Message-IDs). Not held: `holder` does, or no one yet. */
export type ReportClaim =
  | { readonly held: true; readonly token?: string }
  | { readonly held: false; readonly holder: string | null; readonly done: boolean };

export interface ReportClaims {
  /** This process's name, as a claim records it (absent when alone). */
  readonly instance?: string;
  claim(key: string): Promise<ReportClaim>;
  /** The day's report has gone out (or was given up) on every channel: no process takes it over any more. */
  done(key: string): Promise<unknown>;
}

export const ALONE: ReportClaims = {
  claim: () => Promise.resolve({ held: true }),
  done: () => Promise.resolve(true),
};

export const REPORT_KEY_PREFIX = 'office_report:';

export class ClaimedReports {
  readonly #claims: ReportClaims;
  readonly #queue: NotificationQueue;
  readonly #logger: Logger;
  /** Days found done (by any process): not claimed again. */
  readonly #done = new Set<string>();
  /** Keys whose copy this process withdrew: never recorded done from here. */
  readonly #withdrawn = new Set<string>();
  /** What was last said of a day another process holds, so that it is said once. */
  readonly #said = new Map<string, string>();

  constructor(options: { claims: ReportClaims; queue: NotificationQueue; logger: Logger }) {
    this.#claims = options.claims;
    this.#queue = options.queue;
    this.#logger = options.logger;
  }

  /** Claims the day to queue its report: the Message-IDs' token when this process holds it, else null. */
  async toQueue(key: string): Promise<{ token?: string } | null> {
    if (this.#done.has(key)) return null;
    const claim = await this.#claims.claim(key);
    if (claim.held) return claim.token === undefined ? {} : { token: claim.token };
    this.#notHeld(key, claim);
    return null;
  }

  /**
   * Keeps the claims of the reports queued here and not yet sent (today's and any day's still being retried):
   * withdraws those another process holds now; true when the rest may be sent now.
   */
  async keepOpen(): Promise<boolean> {
    let sendable = true;
    for (const key of this.#queue.openKeys(REPORT_KEY_PREFIX)) {
      const claim = await this.#claims.claim(key);
      if (claim.held) continue;
      this.#notHeld(key, claim);
      const elsewhere = claim.done || (claim.holder !== null && claim.holder !== this.#claims.instance);
      if (elsewhere) this.#withdraw(key, claim);
      // Not a live process itself (its heartbeats lapsed): nothing goes until it holds the day again.
      else sendable = false;
    }
    return sendable;
  }

  /** Records the day done once every message queued here under `key` went out or was given up. */
  async recordDone(key: string): Promise<void> {
    if (this.#done.has(key) || this.#withdrawn.has(key) || !this.#queue.settled(key)) return;
    await this.#claims.done(key);
    this.#done.add(key);
  }

  #withdraw(key: string, claim: Extract<ReportClaim, { held: false }>): void {
    const withdrawn = this.#queue.withdraw(key);
    this.#withdrawn.add(key);
    this.#logger.warn(
      { day: key.slice(REPORT_KEY_PREFIX.length), withdrawn, holder: claim.holder },
      'office report: another office process took the day over while this one was away; it sends the report',
    );
  }

  #notHeld(key: string, claim: Extract<ReportClaim, { held: false }>): void {
    if (claim.done) this.#done.add(key);
    const self = claim.holder !== null && claim.holder === this.#claims.instance;
    const said = claim.done
      ? 'office report: another office process sent it'
      : self || claim.holder === null
        ? 'office report: held back while this process is not among the live office processes (its heartbeats lapsed)'
        : 'office report: another office process sends it';
    if (this.#said.get(key) === said) return;
    this.#said.set(key, said);
    this.#logger.info({ day: key.slice(REPORT_KEY_PREFIX.length), holder: claim.holder }, said);
  }
}
