import { describe, expect, it } from 'vitest';
import { assignCompanies } from '../../src/daemon/office/company-assignment.js';

const companies = (count: number): string[] =>
  Array.from({ length: count }, (_, i) => `company-${String(i).padStart(3, '0')}`);

function loads(assigned: ReadonlyMap<string, string>): Map<string, number> {
  const out = new Map<string, number>();
  for (const member of assigned.values()) out.set(member, (out.get(member) ?? 0) + 1);
  return out;
}

describe('assigning the companies to the live instances', () => {
  it('gives every instance its fair share, at most ceil(companies / instances)', () => {
    for (const [count, members] of [
      [6, ['a', 'b']],
      [6, ['a', 'b', 'c']],
      [7, ['a', 'b', 'c']],
      [300, ['a', 'b', 'c']],
      [2, ['a', 'b', 'c']],
    ] as const) {
      const assigned = assignCompanies(companies(count), members);
      expect(assigned.size).toBe(count);
      const share = Math.ceil(count / members.length);
      for (const load of loads(assigned).values()) expect(load).toBeLessThanOrEqual(share);
      // Nobody idle while another holds more than a share's worth less one.
      if (count >= members.length) expect(loads(assigned).size).toBe(members.length);
    }
  });

  it('is the same whatever order the companies and members are read in', () => {
    const list = companies(40);
    const one = assignCompanies(list, ['b', 'c', 'a']);
    const two = assignCompanies([...list].reverse(), ['a', 'c', 'b', 'a']);
    expect([...two].sort()).toEqual([...one].sort());
  });

  it('moves few companies when an instance joins or leaves', () => {
    const list = companies(300);
    const two = assignCompanies(list, ['a', 'b']);
    const three = assignCompanies(list, ['a', 'b', 'c']);
    const moved = list.filter((company) => two.get(company) !== three.get(company));
    // c must take a third (100); moving between a and b as well should stay small next to that.
    expect(moved.length).toBeGreaterThanOrEqual(100);
    expect(moved.length).toBeLessThan(150);
    // When c leaves again, what a and b kept stays where it was.
    const stayed = list.filter((company) => three.get(company) !== 'c');
    const back = assignCompanies(list, ['a', 'b']);
    const kept = stayed.filter((company) => back.get(company) === three.get(company));
    expect(kept.length / stayed.length).toBeGreaterThan(0.8);
  });

  it('gives a company an instance cannot run to one that can, keeping the shares, and to any when none can', () => {
    const list = companies(6);
    const cannotRun = new Map([
      ['a', ['company-000', 'company-001', 'company-002']],
      ['b', ['company-000']],
    ]);
    const assigned = assignCompanies(list, ['a', 'b', 'c'], cannotRun);
    expect(assigned.get('company-000')).toBe('c');
    for (const company of ['company-001', 'company-002']) expect(assigned.get(company)).not.toBe('a');
    expect([...loads(assigned).values()].sort()).toEqual([2, 2, 2]);
    // The same answer whichever instance computes it: the map is read, not the order it came in.
    const again = assignCompanies([...list].reverse(), ['c', 'a', 'b'], new Map([...cannotRun].reverse()));
    expect([...again].sort()).toEqual([...assigned].sort());
    // A company no instance can run is still assigned, within the shares, so that every instance computes the
    // whole assignment; none takes its lease until a reload starts it somewhere.
    const nobody = new Map(['a', 'b', 'c'].map((member) => [member, ['company-005']]));
    const withNobody = assignCompanies(list, ['a', 'b', 'c'], nobody);
    expect(withNobody.has('company-005')).toBe(true);
    expect([...loads(withNobody).values()].sort()).toEqual([2, 2, 2]);
  });

  it('assigns nothing when no instance is known', () => {
    expect(assignCompanies(companies(3), []).size).toBe(0);
  });
});
