/**
 * Sends the office's morning report (companies.report) once a day, after its time, through the office file's own
 * channels. The report is queued in the office's own state file under the day's key, so it is queued once per day
 * and delivered with the notifications' retries even across a restart. With several office processes, the process
 * that claims the day in the office's database queues it (OfficeDuties, src/ha/office-duties.ts): one report goes
 * out, and if its process dies before it went out, another takes the day over with the same Message-ID.
 */
import { dirname } from 'node:path';
import { hostname } from 'node:os';
import { isDeepStrictEqual } from 'node:util';
import type { Logger } from 'pino';
import { apiNetworkOptions } from '../../api-access/index.js';
import type { LoadedConfig, OfficeConfig, OfficeReportConfig } from '../../config/index.js';
import { scrubSecrets } from '../../log/index.js';
import { errorMessage } from '../../engine/outcome.js';
import {
  buildChannels,
  channelSecrets,
  NotificationSender,
  reportDue,
  type Channel,
} from '../../notify/index.js';
import {
  companyNight,
  officeReport,
  type CompanyNight,
  type ReportedCompany,
} from '../../notify/office-report.js';
import { reportWindow } from '../../notify/daily-report.js';
import { enqueue } from '../../notify/routing.js';
import type { Clock } from '../../shared/clock.js';
import type { StateStore } from '../../state/index.js';
import { ALONE, ClaimedReports, REPORT_KEY_PREFIX, type ReportClaims } from './report-claims.js';

export interface OfficeReportOptions {
  readonly office: OfficeConfig;
  readonly report: OfficeReportConfig;
  /** The settings every company shares (time zone, network, `ha` name): the first company's config. */
  readonly first: LoadedConfig;
  /** The office's own state file. */
  readonly state: StateStore;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly secrets: () => readonly string[];
  readonly companies: () => readonly ReportedCompany[];
  /** Who sends the day's report when several office processes share the office; without, this process does. */
  readonly claims?: ReportClaims | undefined;
}

export class OfficeReportService {
  readonly #options: OfficeReportOptions;
  readonly #channels: Map<string, Channel>;
  readonly #sender: NotificationSender;
  #timer: NodeJS.Timeout | undefined;
  /** The pass going on now, which a stop waits for. */
  #passing: Promise<void> | null = null;
  #again = false;
  #stopped = false;
  readonly #days: ClaimedReports;
  /** The last failure of a pass, said once until a pass succeeds again. */
  #lastFailure: string | null = null;

  constructor(options: OfficeReportOptions) {
    this.#options = options;
    this.#days = new ClaimedReports({
      claims: options.claims ?? ALONE,
      queue: options.state.notifications,
      logger: options.logger,
    });
    const { report, first, state, clock, logger } = options;
    this.#channels = buildChannels(report.notifications, {
      origin: this.#origin(),
      baseDir: dirname(options.office.file),
      network: apiNetworkOptions(first.config),
    });
    this.#sender = new NotificationSender({
      ...{ state, clock, logger, channels: this.#channels },
      maxAttempts: report.notifications.max_attempts,
      perMinute: report.notifications.per_minute,
      scrub: (text) => this.#scrub(text),
      // A message that went out (or was given up) may settle the day: recorded done at once, not a poll later, so
      // that a process dying in between leaves as short a window as can be for another to send it again.
      onOutcome: () => void this.pass(),
    });
  }

  start(): void {
    // As often as the notifications look for news (notifications.poll_interval of the office file).
    this.#timer = setInterval(() => void this.pass(), this.#options.report.notifications.poll_interval);
    void this.pass();
  }

  /** Queues today's report once its time has passed (once per local day), then sends what waits. */
  async pass(): Promise<void> {
    if (this.#stopped) return;
    if (this.#passing !== null) {
      // What asked for it (a message's outcome) may have come after this pass looked: one more pass follows.
      this.#again = true;
      return;
    }
    do {
      this.#again = false;
      this.#passing = this.#pass();
      try {
        await this.#passing;
      } finally {
        this.#passing = null;
      }
    } while (this.#again && !this.#stopped);
  }

  async #pass(): Promise<void> {
    const { report, first, state, clock, logger } = this.#options;
    try {
      const now = clock.now();
      const { due, day } = reportDue(now, report.at, first.config.timezone);
      const key = `${REPORT_KEY_PREFIX}${day}`;
      if (now >= due && !state.notifications.has(key)) await this.#queue(key, due, day);
      if (await this.#days.keepOpen()) this.#sender.kick();
      await this.#days.recordSettled(key);
      this.#lastFailure = null;
    } catch (error) {
      const said = errorMessage(error);
      if (said !== this.#lastFailure) {
        logger.warn({ err: error }, 'office report pass failed; trying again on every pass (said once)');
      }
      this.#lastFailure = said;
    }
  }

  /** Queues the day's report once this process holds the day. */
  async #queue(key: string, due: number, day: string): Promise<void> {
    const { report, first, state, logger } = this.#options;
    const claim = await this.#days.toQueue(key);
    if (claim === null) return;
    const timeZone = first.config.timezone;
    const message = officeReport(await this.#nights(due), due, timeZone, this.#origin());
    const scrub = (text: string): string => this.#scrub(text);
    const routing = {
      ...{ state, config: report.notifications, scrub, timezone: timeZone },
      installation: claim.token,
    };
    state.transaction(() => enqueue(routing, report.channels, key, message));
    logger.info({ day, channels: report.channels }, 'office report queued');
  }

  /**
   * Each company's night, one company per turn of the event loop: on a PostgreSQL state each read waits for the
   * database, and 300 companies read in one go would hold up every company's lease renewals.
   */
  async #nights(due: number): Promise<CompanyNight[]> {
    const window = reportWindow(due);
    const nights: CompanyNight[] = [];
    for (const company of this.#options.companies()) {
      nights.push(companyNight(company, window));
      await new Promise((resolve) => setImmediate(resolve));
    }
    return nights;
  }

  /** Stops checking; a report being sent goes again at the next start (it stays queued until sent). */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    await this.#passing;
    await Promise.race([this.#sender.idle(), new Promise((resolve) => setTimeout(resolve, 2_000))]);
    for (const channel of this.#channels.values()) channel.close();
  }

  #origin(): { instance: string; node: string; config: string } {
    const { report, first, office } = this.#options;
    return {
      instance: report.notifications.instance ?? first.config.ha?.instance ?? hostname(),
      node: first.config.ha?.instance ?? hostname(),
      config: office.file,
    };
  }

  #scrub(text: string): string {
    return scrubSecrets(text, [
      ...this.#options.secrets(),
      ...channelSecrets(this.#options.report.notifications),
    ]);
  }
}

/** What a reload did to the office report: its settings (companies.report, the office file's notifications). */
export type OfficeReportChange = 'unchanged' | 'started' | 'stopped' | 'reloaded' | 'refused';

export interface OfficeReportFollowed {
  readonly change: OfficeReportChange;
  /** Why the new settings were not taken up (`refused`): the report goes on with those it has. */
  readonly reason?: string;
}

/** The office report's service, started again with the new settings when a reload changed them. */
export class FollowedReport {
  readonly #make: (report: OfficeReportConfig) => OfficeReportService;
  readonly #logger: Logger;
  readonly #secrets: () => readonly string[];
  /** The settings the running service was built from (undefined: no report), whatever the file says since. */
  #settings: OfficeReportConfig | undefined;
  #service: OfficeReportService | undefined;

  /** Starts the service `make` builds for `settings` (none without companies.report). */
  constructor(options: {
    readonly make: (report: OfficeReportConfig) => OfficeReportService;
    readonly settings: OfficeReportConfig | undefined;
    readonly logger: Logger;
    /** The office's secrets, kept out of a refusal's reason (a channel's URL is one too). */
    readonly secrets: () => readonly string[];
  }) {
    this.#make = options.make;
    this.#logger = options.logger;
    this.#secrets = options.secrets;
    this.#settings = options.settings;
    this.#service = options.settings === undefined ? undefined : options.make(options.settings);
    this.#service?.start();
  }

  /**
   * A reload read `after`: when it differs from the settings the report runs with, the new service is built first
   * (a channel it cannot build refuses the change and the report goes on as it was), then the old one is stopped.
   */
  async follow(after: OfficeReportConfig | undefined): Promise<OfficeReportFollowed> {
    const before = this.#settings;
    if (isDeepStrictEqual(before, after)) return { change: 'unchanged' };
    let next: OfficeReportService | undefined;
    try {
      next = after === undefined ? undefined : this.#make(after);
    } catch (error) {
      const secrets = [...this.#secrets(), ...channelSecrets(after?.notifications)];
      const reason = `${scrubSecrets(errorMessage(error), secrets)}; the office report goes on with the settings it has`;
      this.#logger.warn({ reason }, 'office report not reloaded');
      return { change: 'refused', reason };
    }
    await this.#service?.stop();
    this.#service = next;
    this.#settings = after;
    next?.start();
    const change = before === undefined ? 'started' : after === undefined ? 'stopped' : 'reloaded';
    this.#logger.info({ change }, 'office report follows the reloaded office file');
    return { change };
  }

  async stop(): Promise<void> {
    const service = this.#service;
    this.#service = undefined;
    await service?.stop();
  }
}
