/**
 * The status page as a browser renders it: headless Chromium (Debian's `chromium`, installed by .ci/run) loads
 * the page of a healthy and of a failing daemon, takes a screenshot of each and dumps the DOM it rendered, and
 * the failing one must show the reason. Set SUPPLY_SYNC_SCREENSHOT_DIR to keep the screenshots.
 */
import { execFile, spawnSync } from 'node:child_process';
import { mkdtemp, mkdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openDemoErp } from '../../connectors/sql/demo-erp/index.js';
import { openHealthWorld, type HealthWorld } from './health-support.js';

const run = promisify(execFile);
const CHROMIUM = 'chromium';
const probe = spawnSync(CHROMIUM, ['--version'], { encoding: 'utf8' });
const hasChromium = probe.error === undefined && probe.status === 0;
const required = process.env['SUPPLY_SYNC_REQUIRE_SERVICES'] === '1';
if (!hasChromium && !required) console.warn('skipped: chromium is not installed (Debian package chromium)');

const BRANCHES = {
  br_tlv: 'TLV01',
  br_hrz: 'HRZ02',
  br_jlm: 'JLM03',
  br_hfa: 'HFA04',
  br_bsh: 'BSH05',
  br_rnn: 'RNN06',
};

describe.skipIf(!hasChromium && !required)('the status page in headless Chromium', () => {
  let world: HealthWorld;
  let shots: string;
  let profiles: string;
  beforeAll(async () => {
    expect(
      hasChromium,
      'chromium is required (SUPPLY_SYNC_REQUIRE_SERVICES=1): install Debian package chromium',
    ).toBe(true);
    profiles = await mkdtemp(join(tmpdir(), 'supply-sync-chromium-'));
    shots = process.env['SUPPLY_SYNC_SCREENSHOT_DIR'] ?? join(profiles, 'shots');
    await mkdir(shots, { recursive: true });
  });
  afterAll(async () => {
    await rm(profiles, { recursive: true, force: true });
  });
  beforeEach(async () => {
    world = await openHealthWorld();
  });
  afterEach(async () => {
    await world.close();
  });

  /** Screenshot and rendered DOM of `url`, each from a fresh browser profile. */
  async function render(url: string, name: string): Promise<{ dom: string; screenshot: string }> {
    const flags = async (): Promise<string[]> => [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      `--user-data-dir=${await mkdtemp(join(profiles, 'profile-'))}`,
      '--window-size=1400,1300',
    ];
    const screenshot = join(shots, `${name}.png`);
    await run(CHROMIUM, [...(await flags()), `--screenshot=${screenshot}`, url], { timeout: 60_000 });
    const { stdout } = await run(CHROMIUM, [...(await flags()), '--dump-dom', url], {
      timeout: 60_000,
      maxBuffer: 10 * 1024 * 1024,
    });
    return { dom: stdout, screenshot };
  }

  /** The text of an element by id in the dumped DOM. */
  function textOf(dom: string, id: string): string {
    const match = new RegExp(`<[^>]+id="${id}"[^>]*>([^<]*)<`).exec(dom);
    return match?.[1] ?? '';
  }

  it('shows a healthy daemon as healthy, with its version and times in the configured zone', async () => {
    await openDemoErp(join(world.dir, 'erp')).then((erp) => erp.driver.close());
    const daemon = await world.start({
      timezone: 'Asia/Jerusalem',
      connectors: { erp: { type: 'demo-erp', data_dir: 'erp', journal: false } },
      jobs: { orders: { flow: 'orders', connector: 'erp', schedule: '*/5 * * * *', freshness: '15m' } },
      mappings: { branches: BRANCHES },
    });
    await daemon.runNow('orders');
    expect(daemon.env.state.runs.last('orders')?.outcome).toBe('ok');
    const { dom, screenshot } = await render(`${daemon.opsUrl}/status`, 'healthy');
    expect((await stat(screenshot)).size).toBeGreaterThan(10_000);
    expect(textOf(dom, 'headline')).toBe('Ready: all jobs and connectors healthy');
    expect(dom).toContain('times in Asia/Jerusalem');
    expect(dom).toMatch(/supply-sync \d+\.\d+\.\d+/);
    expect(dom).toMatch(/\(just now\)|min ago\)/);
    expect(dom).not.toContain('class="failing"');
    expect(dom).not.toContain('id="leadership"'); // one instance on a SQLite state: no election to speak of
  });

  it('shows a failing daemon with the reason, the failing job highlighted and dead letters with reasons', async () => {
    const apiKey = world.sandbox.keys.expired;
    const daemon = await world.start({
      api: { base_url: world.sandbox.baseUrl, api_key: apiKey },
      connectors: { erp: { type: 'demo-erp', data_dir: 'erp', journal: false } },
      jobs: { orders: { flow: 'orders', connector: 'erp', schedule: '*/5 * * * *', freshness: '15m' } },
      mappings: { branches: BRANCHES },
    });
    await daemon.runNow('orders');
    daemon.env.state.deadLetters.add('orders', 'ord_77', { id: 'ord_77' }, 'no ERP customer for buyer buy_9');
    const { dom, screenshot } = await render(`${daemon.opsUrl}/status`, 'failing');
    expect((await stat(screenshot)).size).toBeGreaterThan(10_000);
    expect(textOf(dom, 'headline')).toBe(
      'Not ready: the API refused the supplier key (key_expired: fix api.api_key); 1 job failing (orders)',
    );
    expect(dom).toContain('401 key_expired');
    expect(dom).toContain('api.api_key');
    expect(dom).toMatch(/<tr class="failing"><td>orders<\/td>/);
    // The console lists the letter under its reason, by id and record key; the Dead letters section counts it.
    expect(dom).toMatch(
      /<td>no ERP customer for buyer buy_9<\/td><td>1<\/td>.*<li data-dead-letter="\d+">#\d+ ord_77[ <]/s,
    );
    expect(dom.split('ord_77').length - 1).toBe(1);
    expect(dom).not.toContain(apiKey);
  });
});
