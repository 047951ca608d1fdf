/**
 * Which of an office's live instances each company belongs to: rendezvous (highest random weight) hashing with a
 * bound on load. Each company ranks the instances by a hash of the pair and goes to the first of its ranking that
 * holds fewer than its fair share, ceil(companies / instances). Every instance computes the same answer from the
 * same companies and members, with no coordinator; when an instance joins or leaves, mostly the companies that must
 * move do. A company an instance said it cannot run (its config failed there) goes to one that can.
 */
import { createHash } from 'node:crypto';

export function assignCompanies(
  companies: readonly string[],
  members: readonly string[],
  /** The companies each instance said it cannot run: they go to the others (to every one, if none can). */
  cannotRun: ReadonlyMap<string, readonly string[]> = new Map(),
): ReadonlyMap<string, string> {
  const assigned = new Map<string, string>();
  const live = [...new Set(members)].sort();
  if (live.length === 0) return assigned;
  const share = Math.ceil(companies.length / live.length);
  const load = new Map(live.map((member) => [member, 0]));
  const candidates = (company: string): string[] => {
    const able = live.filter((member) => cannotRun.get(member)?.includes(company) !== true);
    return able.length > 0 ? able : [...live];
  };
  // The companies with the fewest instances able to run them are placed first, while those have room.
  const ordered = [...new Set(companies)]
    .sort()
    .map((company) => ({ company, able: candidates(company) }))
    .sort((a, b) => a.able.length - b.able.length);
  for (const { company, able } of ordered) {
    const ranking = able.sort((a, b) => weight(company, b) - weight(company, a) || (a < b ? -1 : 1));
    const chosen = ranking.find((member) => (load.get(member) ?? 0) < share) ?? (ranking[0] as string);
    load.set(chosen, (load.get(chosen) ?? 0) + 1);
    assigned.set(company, chosen);
  }
  return assigned;
}

/** A stable pseudo-random weight of a (company, member) pair: the first 48 bits of its SHA-256. */
function weight(company: string, member: string): number {
  return createHash('sha256').update(`${company}\u0000${member}`).digest().readUIntBE(0, 6);
}
