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
  | {
      readonly held: false;
      readonly holder: string | null;
      readonly done: boolean;
      /** Whether the holder is a live process now. */
      readonly holderLive: boolean;
    };

export interface ReportClaims {
  /** This process's name, as a claim records it (absent when alone). */
  readonly instance?: string;
  claim(key: string): Promise<ReportClaim>;
  /**
   * The day's report has gone out (or was given up) on every channel: no process takes it over any more. False
   * when this process does not hold the day.
   */
  done(key: string): Promise<boolean>;
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
  /** Keys whose copy this process withdrew: not recorded done from here unless it claims the day again. */
  readonly #withdrawn = new Set<string>();
  /** Keys with messages queued here that are not yet recorded done: looked at until they are. */
  readonly #watching = new Set<string>();
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
    if (claim.held) {
      this.#withdrawn.delete(key);
      this.#watching.add(key);
      return claim.token === undefined ? {} : { token: claim.token };
    }
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
      this.#watching.add(key);
      const claim = await this.#claims.claim(key);
      if (claim.held) continue;
      this.#notHeld(key, claim);
      const elsewhere =
        claim.done || (claim.holder !== null && claim.holder !== this.#claims.instance && claim.holderLive);
      if (elsewhere) this.#withdraw(key, claim);
      // Not a live process itself (its heartbeats lapsed): nothing goes until it holds the day again.
      else sendable = false;
    }
    return sendable;
  }

  /**
   * Records done each day whose messages queued here all went out or were given up: `today` and every day seen
   * queued here before (a report still retried past midnight is recorded when it settles).
   */
  async recordSettled(today: string): Promise<void> {
    for (const key of new Set([today, ...this.#watching])) {
      if (this.#done.has(key) || this.#withdrawn.has(key) || !this.#queue.settled(key)) continue;
      if (await this.#claims.done(key)) this.#done.add(key);
      this.#watching.delete(key);
    }
  }

  #withdraw(key: string, claim: Extract<ReportClaim, { held: false }>): void {
    const withdrawn = this.#queue.withdraw(key);
    this.#withdrawn.add(key);
    this.#watching.delete(key);
    this.#logger.warn(
      { day: key.slice(REPORT_KEY_PREFIX.length), withdrawn, holder: claim.holder },
      'office report: another office process took the day over while this one was away; it sends the report',
    );
  }

  #notHeld(key: string, claim: Extract<ReportClaim, { held: false }>): void {
    if (claim.done) this.#done.add(key);
    const elsewhere = claim.holderLive && claim.holder !== this.#claims.instance;
    // Not held though no live process holds it: this process itself is not live (its heartbeats lapsed).
    const said = claim.done
      ? 'office report: sent already'
      : elsewhere
        ? 'office report: another office process sends it'
        : 'office report: held back while this process is not among the live office processes (its heartbeats lapsed); ' +
          "it goes once they reach the office's database again: check state.url in the office file and the server";
    if (this.#said.get(key) === said) return;
    this.#said.set(key, said);
    this.#logger.info({ day: key.slice(REPORT_KEY_PREFIX.length), holder: claim.holder }, said);
  }
}
