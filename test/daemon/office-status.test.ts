import { describe, expect, it } from 'vitest';
import {
  officeRows,
  renderOfficeHtml,
  type CompanyEntry,
  type CompanyPlacement,
} from '../../src/daemon/office/office-status.js';
import type { Daemon } from '../../src/daemon/start/run-daemon.js';

/** This instance is `east`; `west` and `north` are the others, `north` unable to run `charlie`. */
const placement: CompanyPlacement = {
  instance: 'east',
  ownerOf: (company) => ({ alpha: 'west', bravo: 'east', charlie: 'north' })[company] ?? null,
  cannotRun: (instance, company) => instance === 'north' && company === 'charlie',
};

const failed = (name: string): CompanyEntry => ({
  name,
  state: 'failed',
  error: 'environment variable KEY is not set',
  daemon: undefined,
});

describe('the office page: where a company runs', () => {
  it('names the assigned instance for a company that failed here, and none where that cannot run it either', async () => {
    const rows = await officeRows([failed('alpha'), failed('bravo'), failed('charlie')], placement);
    const where = Object.fromEntries(rows.map((row) => [row.company, row.runsOn]));
    expect(where).toEqual({
      alpha: { instance: 'west', here: false },
      bravo: { instance: null, here: false },
      charlie: { instance: null, here: false },
    });
    const html = renderOfficeHtml(rows);
    expect(html).toContain('<td>west</td>');
    expect(html.match(/none: no instance can start it/g)).toHaveLength(2);
  });

  it('says nothing of where a failed company runs while the instances are not known', async () => {
    const unknown: CompanyPlacement = { ...placement, ownerOf: () => null };
    const rows = await officeRows([failed('alpha')], unknown);
    expect(rows[0]?.runsOn).toBeUndefined();
    expect(renderOfficeHtml(rows)).toContain('not this process (it failed here)');
  });

  it('does not guess from the assignment for a company running here whose status cannot be read', async () => {
    const daemon = { snapshot: () => Promise.reject(new Error('state unreadable')) } as unknown as Daemon;
    const rows = await officeRows([{ name: 'alpha', state: 'running', error: null, daemon }], placement);
    expect(rows[0]?.runsOn).toBeUndefined();
  });
});
