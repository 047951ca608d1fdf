/**
 * The status page as a console, driven in headless Chromium (Debian's `chromium`, installed by .ci/run) through
 * playwright-core: an authenticated viewer clicks each button (run now, pause with a reason, resume, retry and
 * discard one dead letter, retry and discard all of a reason) and each effect is checked in the state and on the page. A
 * viewer without credentials gets no page and no buttons; a daemon without a control API shows no buttons.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Daemon } from '../../src/daemon/index.js';
import { localTokenFile } from '../../src/daemon/start/local-token.js';
import { openHealthWorld, type HealthWorld } from './health-support.js';

const CHROMIUM = '/usr/bin/chromium';
const probe = spawnSync(CHROMIUM, ['--version'], { encoding: 'utf8' });
const hasChromium = probe.error === undefined && probe.status === 0;
const required = process.env['SUPPLY_SYNC_REQUIRE_SERVICES'] === '1';
if (!hasChromium && !required) console.warn('skipped: chromium is not installed (Debian package chromium)');

const USER = 'monitoring';
const PASSWORD = 'console-test-password';
const JOBS = {
  connectors: { erp: { type: 'demo-erp', data_dir: 'erp', journal: false } },
  jobs: { orders: { flow: 'orders', connector: 'erp', schedule: '0 3 1 1 *' } },
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
};

describe.skipIf(!hasChromium && !required)('the status page console in headless Chromium', () => {
  let world: HealthWorld;
  let daemon: Daemon;
  let plain: Daemon;
  let browser: Browser;

  beforeAll(async () => {
    expect(
      hasChromium,
      'chromium is required (SUPPLY_SYNC_REQUIRE_SERVICES=1): install Debian package chromium',
    ).toBe(true);
    world = await openHealthWorld();
    daemon = await world.start({
      server: { port: 0, auth: { username: USER, password: PASSWORD, role: 'operator' } },
      ...JOBS,
    });
    plain = await world.start({ server: { port: 0 }, ...JOBS, connectors: {}, jobs: {} });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await world?.close();
  });

  /** A fresh browser context (no stored credential); with `signIn` the person signs in on the page's form. */
  const viewer = async (signIn = true): Promise<Page> => {
    const context = await browser.newContext();
    const page = await context.newPage();
    page.on('dialog', (dialog) => {
      confirmations.push(dialog.message());
      void dialog.accept();
    });
    if (!signIn) return page;
    await page.goto(`${daemon.opsUrl}/status`);
    await page.locator('#sign-in-only').waitFor();
    await page.locator('#sign-in input[name="user"]').fill(USER);
    await page.locator('#sign-in input[name="password"]').fill(PASSWORD);
    await page.locator('#sign-in button[type="submit"]').click();
    await page.locator('h2:has-text("Recent runs")').waitFor();
    return page;
  };
  const confirmations: string[] = [];
  /** Clicks and waits for the page's answer line (after a success, on the refreshed page). */
  const click = async (page: Page, selector: string): Promise<string> => {
    await page.locator(selector).first().click();
    await page.locator('#console-result[data-status]').waitFor();
    return (await page.locator('#console-result').textContent()) ?? '';
  };

  it('runs a job now, pauses it with a reason and resumes it', { timeout: 90_000 }, async () => {
    const page = await viewer();
    const job = 'section[data-job="orders"]';
    await expect(page.locator(job).textContent()).resolves.toContain('No runs yet.');

    expect(await click(page, `${job} button:has-text("Run now")`)).toBe('Run now: done');
    const ran = daemon.env.state.runs.last('orders');
    expect(ran).toMatchObject({
      trigger: 'operator',
      outcome: 'ok',
      requestedBy: 'api:monitoring@127.0.0.1',
    });
    // The run list names who asked: the signed-in operator, by name and address.
    await expect(page.locator(`${job} tbody tr`).first().textContent()).resolves.toMatch(
      /operator by api:monitoring@127\.0\.0\.1\s*ok/,
    );
    // The run read the sandbox's orders: the chart counts them, the one run of the day.
    const fetched = ran?.counts['fetched'] ?? 0;
    expect(fetched).toBeGreaterThan(0);
    await expect(page.locator(`${job} svg.chart`).getAttribute('aria-label')).resolves.toBe(
      `${fetched} records in the last 24 hours`,
    );

    await page.locator('input[data-reason-for="orders"]').fill('stock count');
    expect(await click(page, `${job} button:has-text("Pause")`)).toBe('Pause: done');
    expect(daemon.env.state.pausedJobs.get('orders')).toMatchObject({
      pausedBy: `api:${USER}@127.0.0.1`,
      reason: 'stock count',
    });
    await expect(page.locator(`${job} h3`).textContent()).resolves.toBe('orders (paused)');
    await expect(page.locator('body').textContent()).resolves.toContain(
      `by api:${USER}@127.0.0.1: stock count`,
    );
    expect(await page.locator(`${job} button:has-text("Pause")`).count()).toBe(0);

    expect(await click(page, `${job} button:has-text("Run now")`)).toMatch(
      /^Run now: job "orders" is paused/,
    );
    expect(await click(page, `${job} button:has-text("Resume")`)).toBe('Resume: done');
    expect(daemon.env.state.pausedJobs.get('orders')).toBeNull();
    await expect(page.locator(`${job} h3`).textContent()).resolves.toBe('orders');
  });

  it(
    'retries and discards one dead letter, and retries and discards all of a reason',
    { timeout: 90_000 },
    async () => {
      const { state } = daemon.env;
      const one = state.deadLetters.add('orders', 'ord_1', {}, 'no ERP item for SKU X-1');
      const two = state.deadLetters.add('orders', 'ord_2', {}, 'no ERP item for SKU X-1');
      const other = state.deadLetters.add('orders', 'ord_3', {}, 'no ERP customer for buyer buy_9');
      const three = state.deadLetters.add('orders', 'ord_4', {}, 'no ERP item for SKU X-2');
      const four = state.deadLetters.add('orders', 'ord_5', {}, 'no ERP item for SKU X-2');
      const page = await viewer();
      const row = (id: number) => `li[data-dead-letter="${id}"]`;
      await expect(
        page.locator('tr:has-text("no ERP item for SKU X-1") td').nth(2).textContent(),
      ).resolves.toBe('2');

      expect(await click(page, `${row(one.id)} button:has-text("Retry")`)).toBe('Retry: done');
      expect(state.deadLetters.byId(one.id)?.status).toBe('retrying');
      await expect(page.locator(row(one.id)).textContent()).resolves.toMatch(/^#\d+ ord_1 \(retrying\)/);
      expect(await page.locator(`${row(one.id)} button:has-text("Retry")`).count()).toBe(0);
      await expect(page.locator(row(two.id)).textContent()).resolves.not.toContain('retrying');
      expect(await click(page, `${row(other.id)} button:has-text("Discard")`)).toBe('Discard: done');
      expect(state.deadLetters.byId(other.id)?.status).toBe('discarded');
      expect(await page.locator(row(other.id)).count()).toBe(0);

      const groupX2 = 'tr:has-text("no ERP item for SKU X-2")';
      expect(await click(page, `${groupX2} button:has-text("Retry all")`)).toBe('Retry all: done');
      expect(confirmations.at(-1)).toBe(
        'Retry all 2 open dead letters of orders held back for "no ERP item for SKU X-2"?',
      );
      expect(state.deadLetters.byId(three.id)?.status).toBe('retrying');
      expect(state.deadLetters.byId(four.id)?.status).toBe('retrying');
      expect(state.deadLetters.byId(two.id)?.status).toBe('open');
      for (const id of [three.id, four.id]) {
        await expect(page.locator(row(id)).textContent()).resolves.toMatch(/^#\d+ ord_[45] \(retrying\)/);
      }
      await expect(page.locator(row(two.id)).textContent()).resolves.not.toContain('retrying');

      expect(await click(page, 'tr:has-text("no ERP item for SKU X-1") button:has-text("Discard all")')).toBe(
        'Discard all: done',
      );
      expect(state.deadLetters.byId(one.id)?.status).toBe('discarded');
      expect(state.deadLetters.byId(two.id)?.status).toBe('discarded');
      expect(state.deadLetters.byId(three.id)?.status).toBe('retrying');
      expect(await click(page, `${groupX2} button:has-text("Discard all")`)).toBe('Discard all: done');
      expect(state.deadLetters.byId(four.id)?.status).toBe('discarded');
      await expect(page.locator('body').textContent()).resolves.toContain('No open dead letters.');
    },
  );

  it('shows a browser without credentials the sign-in form and nothing of the daemon; a wrong sign-in acts on nothing', async () => {
    const stranger = await viewer(false);
    const response = await stranger.goto(`${daemon.opsUrl}/status`);
    expect(response?.status()).toBe(401);
    const text = (await stranger.locator('body').textContent()) ?? '';
    expect(text).toContain('Sign in');
    expect(text).not.toContain('orders');
    await stranger.locator('#sign-in input[name="token"]').fill('not-a-token');
    await stranger.locator('#sign-in button[type="submit"]').click();
    await stranger.locator('#console-result[data-status="401"], #sign-in-only').first().waitFor();
    expect(await stranger.locator('h2:has-text("Recent runs")').count()).toBe(0);
  });

  it('signs in with the local token where server.auth is not set, keeping it in the tab, not in a cookie', async () => {
    const page = await viewer(false);
    await page.goto(`${plain.opsUrl}/status`);
    await expect(page.locator('h2:has-text("Recent runs")').count()).resolves.toBe(1);
    await expect(page.locator('#signed-in').textContent()).resolves.toBe('sign in to act');
    const token = readFileSync(localTokenFile(plain.env.loaded.config), 'utf8').trim();
    await page.locator('#sign-in input[name="token"]').fill(token);
    await page.locator('#sign-in button[type="submit"]').click();
    // The page fetches itself again with the credential and replaces its body: wait for the refreshed one.
    await page.locator('#signed-in:has-text("signed in for this tab")').waitFor();
    await expect(page.locator('#signed-in').textContent()).resolves.toBe('signed in for this tab');
    expect(await page.evaluate('document.cookie')).toBe('');
  });

  it('refuses to be shown inside a page of another origin', async () => {
    const framer = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(
        `<!doctype html><iframe id="console" src="${plain.opsUrl}/status" width="800" height="600"></iframe>`,
      );
    });
    await new Promise<void>((resolve) => framer.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = framer.address() as AddressInfo;
      const page = await viewer(false);
      const blocked = page.waitForEvent('console', (message) =>
        /frame-ancestors|X-Frame-Options|refused/i.test(message.text()),
      );
      await page.goto(`http://localhost:${port}/`);
      await blocked;
      const frame = page.frames().find((f) => f !== page.mainFrame());
      expect(frame).toBeDefined();
      expect(await frame?.locator('h1:has-text("supply-sync status")').count()).toBe(0);
    } finally {
      framer.close();
    }
  });
});
