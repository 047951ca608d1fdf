/**
 * The office report across reloads of the office file (FollowedReport): the service is built for the new settings
 * before the old one stops, a change it cannot build is refused with its reason while the old service goes on, and
 * the next reload tries the change again.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { OfficeReportConfig } from '../../src/config/index.js';
import { FollowedReport, type OfficeReportService } from '../../src/daemon/office/office-report-service.js';

/** Report settings told apart by their time; the rest is what the follower compares, not what it reads. */
const settingsAt = (at: string): OfficeReportConfig =>
  ({ at, channels: ['office'] }) as unknown as OfficeReportConfig;

/** A secret of the office that a channel's error might carry. */
const OFFICE_SECRET = 'smtp-office-secret-9c1f4e';

interface FakeService {
  readonly at: string;
  started: boolean;
  stopped: boolean;
}

function follower(initial: OfficeReportConfig | undefined, unbuildable: ReadonlySet<string> = new Set()) {
  const built: FakeService[] = [];
  const make = (report: OfficeReportConfig): OfficeReportService => {
    if (unbuildable.has(report.at)) {
      throw new Error(`channel office: cannot build for ${report.at} (password ${OFFICE_SECRET})`);
    }
    const service: FakeService = { at: report.at, started: false, stopped: false };
    built.push(service);
    const fake = {
      start: () => void (service.started = true),
      stop: async () => void (service.stopped = true),
    };
    return fake as unknown as OfficeReportService;
  };
  const report = new FollowedReport({
    make,
    settings: initial,
    logger: pino({ level: 'silent' }),
    secrets: () => [OFFICE_SECRET],
  });
  return { report, built };
}

describe('the office report across reloads', () => {
  it('restarts with changed settings, starts when added, stops when removed, and leaves equal settings alone', async () => {
    const { report, built } = follower(undefined);
    expect(built).toEqual([]);
    expect(await report.follow(settingsAt('06:00'))).toEqual({ change: 'started' });
    expect(await report.follow(settingsAt('06:00'))).toEqual({ change: 'unchanged' });
    expect(await report.follow(settingsAt('07:30'))).toEqual({ change: 'reloaded' });
    expect(built.map((service) => [service.at, service.started, service.stopped])).toEqual([
      ['06:00', true, true],
      ['07:30', true, false],
    ]);
    expect(await report.follow(undefined)).toEqual({ change: 'stopped' });
    expect(built[1]?.stopped).toBe(true);
    await report.stop();
  });

  it('refuses settings it cannot build with a reason free of secrets, keeps the running report, and takes them on a later reload', async () => {
    const unbuildable = new Set(['08:00']);
    const { report, built } = follower(settingsAt('06:00'), unbuildable);
    const refused = await report.follow(settingsAt('08:00'));
    expect(refused.change).toBe('refused');
    expect(refused.reason).toMatch(
      /^channel office: cannot build for 08:00 \(password .+\); the office report goes on/,
    );
    expect(refused.reason).not.toContain(OFFICE_SECRET);
    expect(built.map((service) => [service.at, service.stopped])).toEqual([['06:00', false]]);
    // Fixed in the file (the channel can be built now): the next reload takes the same settings up.
    unbuildable.clear();
    expect(await report.follow(settingsAt('08:00'))).toEqual({ change: 'reloaded' });
    expect(built.map((service) => [service.at, service.stopped])).toEqual([
      ['06:00', true],
      ['08:00', false],
    ]);
    await report.stop();
    expect(built[1]?.stopped).toBe(true);
  });
});
