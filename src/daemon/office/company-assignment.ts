/**
 * Which of an office's live instances each company belongs to: rendezvous (highest random weight) hashing with a
 * bound on load. Each company ranks the instances by a hash of the pair and goes to the first of its ranking that
 * holds fewer than its fair share, ceil(companies / instances). Every instance computes the same answer from the
 * same companies and members, with no coordinator; when an instance joins or leaves, mostly the companies that must
 * move do.
 */
import { createHash } from 'node:crypto';

export function assignCompanies(
  companies: readonly string[],
  members: readonly string[],
): ReadonlyMap<string, string> {
  const assigned = new Map<string, string>();
  const live = [...new Set(members)].sort();
  if (live.length === 0) return assigned;
  const share = Math.ceil(companies.length / live.length);
  const load = new Map(live.map((member) => [member, 0]));
  for (const company of [...new Set(companies)].sort()) {
    const ranking = [...live].sort((a, b) => weight(company, b) - weight(company, a) || (a < b ? -1 : 1));
    const chosen = ranking.find((member) => (load.get(member) ?? 0) < share) as string;
    load.set(chosen, (load.get(chosen) ?? 0) + 1);
    assigned.set(company, chosen);
  }
  return assigned;
}

/** A stable pseudo-random weight of a (company, member) pair: the first 48 bits of its SHA-256. */
function weight(company: string, member: string): number {
  return createHash('sha256').update(`${company}\u0000${member}`).digest().readUIntBE(0, 6);
}
