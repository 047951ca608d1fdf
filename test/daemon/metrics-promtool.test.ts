/**
 * A real scrape of a running daemon, checked by Prometheus's own linter (`promtool check metrics`), and the
 * series IT monitors. promtool comes from Debian's `prometheus` package (.ci/run installs it).
 */
import { spawnSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openHealthWorld, sample, type HealthWorld } from './health-support.js';

const promtool = spawnSync('promtool', ['--version'], { encoding: 'utf8' });
const hasPromtool = promtool.error === undefined && promtool.status === 0;
const required = process.env['SUPPLY_SYNC_REQUIRE_SERVICES'] === '1';
if (!hasPromtool && !required) console.warn('skipped: promtool is not installed (Debian package prometheus)');

describe('metrics of a running daemon', () => {
  let world: HealthWorld;
  beforeEach(async () => {
    world = await openHealthWorld();
  });
  afterEach(async () => {
    await world.close();
  });

  async function scrape(): Promise<string> {
    const daemon = await world.start({
      connectors: { erp: { type: 'demo-erp', data_dir: 'erp', journal: false } },
      jobs: { orders: { flow: 'orders', connector: 'erp', schedule: '*/5 * * * *', freshness: '15m' } },
      mappings: {
        branches: {
          br_tlv: 'TLV01',
          br_hrz: 'HRZ02',
          br_jlm: 'JLM03',
          br_hfa: 'HFA04',
          br_bsh: 'BSH05',
          br_rnn: 'RNN06',
        },
      },
    });
    await daemon.runNow('orders');
    daemon.env.state.deadLetters.add('orders', 'ord_x', { id: 'ord_x' }, 'no ERP customer');
    return world.metrics(daemon);
  }

  it('has the series IT monitors, and no label named job', async () => {
    const text = await scrape();
    const version = (await import('../../package.json', { with: { type: 'json' } })).default.version;
    expect(sample(text, `supply_sync_build_info{version="${version}"}`)).toBe(1);
    expect(sample(text, 'supply_sync_ready')).toBeDefined();
    expect(sample(text, 'supply_sync_connector_up{connector="erp"}')).toBe(1);
    expect(sample(text, 'supply_sync_run_duration_seconds_count{sync_job="orders"}')).toBe(1);
    expect(sample(text, 'supply_sync_job_last_run_timestamp_seconds{sync_job="orders"}')).toBeGreaterThan(
      1e9,
    );
    expect(sample(text, 'supply_sync_job_last_success_timestamp_seconds{sync_job="orders"}')).toBeGreaterThan(
      1e9,
    );
    expect(sample(text, 'supply_sync_job_healthy{sync_job="orders"}')).toBe(1);
    expect(text).toMatch(/^supply_sync_records_total\{sync_job="orders",outcome="fetched"\} \d+$/m);
    expect(sample(text, 'supply_sync_dead_letters_open{flow="orders"}')).toBeGreaterThanOrEqual(1);
    expect(text).toMatch(/^process_cpu_user_seconds_total /m);
    // Prometheus sets `job` on every target: a label of ours with that name would land on exported_job.
    expect(text).not.toMatch(/[{,]job="/);
  });

  it.skipIf(!hasPromtool && !required)('passes promtool check metrics', async () => {
    expect(
      hasPromtool,
      'promtool is required (SUPPLY_SYNC_REQUIRE_SERVICES=1): install Debian package prometheus',
    ).toBe(true);
    const text = await scrape();
    const result = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    expect(`${result.stdout}${result.stderr}`).toBe('');
    expect(result.status).toBe(0);
  });
});
