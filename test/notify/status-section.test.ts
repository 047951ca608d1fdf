/** The status page's Notifications section, from a real queue: a channel in trouble shows, its secret does not. */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { buildStatusSnapshot, renderStatusHtml, type OpsProviders } from '../../src/ops/index.js';
import { openStateStore, type StateStore } from '../../src/state/index.js';
import { FakeClock, tempDir } from '../state/support.js';

const TOKEN = 'hook-token-a1b2c3d4e5f6';

describe('the Notifications section of the status page', () => {
  const tmp = tempDir();
  let state: StateStore | undefined;
  afterEach(() => state?.close());
  afterAll(() => tmp.remove());

  it('shows each channel, marks the one that gave up, and keeps the webhook token out', async () => {
    const clock = new FakeClock();
    state = openStateStore({ file: tmp.file('state.db'), clock });
    const queue = state.notifications;
    queue.enqueue({ dedupKey: 'a', channel: 'accountant', event: 'daily_report', message: '{}' });
    queue.enqueue({ dedupKey: 'b', channel: 'teams', event: 'job_failed', message: '{}' });
    const [mail, teams] = queue.due(10);
    queue.markSent(mail!.id, '250 OK');
    queue.markFailed(teams!.id, `the receiver answered HTTP 404 for https://x.example/hook/${TOKEN}`);
    const providers: OpsProviders = {
      checkStateWritable: () => undefined,
      api: () => ({}),
      connectors: () => [],
      jobs: () => [],
      notifications: () => queue.summary(),
    };
    const snapshot = await buildStatusSnapshot(
      providers,
      { ready: true, checks: [], reasons: [] },
      clock.now(),
      [TOKEN],
    );
    const html = renderStatusHtml(snapshot);
    expect(html).toContain('<h2>Notifications</h2>');
    expect(html).toMatch(/<tr><td>accountant<\/td><td>0<\/td><td>1<\/td><td>0<\/td>/);
    expect(html).toMatch(/<tr class="failing"><td>teams<\/td><td>0<\/td><td>0<\/td><td>1<\/td>/);
    expect(html).toContain('the receiver answered HTTP 404');
    expect(html).not.toContain(TOKEN);
    expect(JSON.stringify(snapshot)).not.toContain(TOKEN);
  });

  it('is left out when no notifications are configured', async () => {
    const providers: OpsProviders = {
      checkStateWritable: () => undefined,
      api: () => ({}),
      connectors: () => [],
      jobs: () => [],
    };
    const snapshot = await buildStatusSnapshot(
      providers,
      { ready: true, checks: [], reasons: [] },
      Date.now(),
      [],
    );
    expect(renderStatusHtml(snapshot)).not.toContain('Notifications');
  });
});
