/** Builds the seeded state: same seed and same clock reading give the same data. */
import type { DomainServices } from '../../http/types.js';
import type { DomainEnv } from '../env.js';
import { emptyState, type DomainState } from '../state.js';
import { seedActivity, type SeedClock } from './activity.js';
import { seedBuyerDay } from './buyer-books.js';
import { seedCatalog } from './catalog.js';
import { createRandom } from './random.js';
import { seedReference, seedSupplierBuyers } from './reference-seed.js';

const DAY_MS = 86_400_000;
const HISTORY_DAYS = 35;

export const DEFAULT_SEED = 20_260_101;

/** History ends a minute before the clock's "now", so every seeded updated_at is in the past. */
export function seedState(services: DomainServices, seed: number = DEFAULT_SEED, firstId = 1): DomainState {
  const state = emptyState(seed, firstId);
  const end = services.clock.now() - 60_000;
  const startOfToday = Math.floor(end / DAY_MS) * DAY_MS;
  let cursor = startOfToday - HISTORY_DAYS * DAY_MS;
  const clock: SeedClock = {
    at: (daysAgo) => {
      cursor = Math.min(Math.max(cursor, startOfToday - daysAgo * DAY_MS + 8 * 3_600_000), end);
    },
    tick: () => {
      cursor = Math.min(cursor + 37_000, end);
    },
    date: () => new Date(cursor).toISOString().slice(0, 10),
    iso: () => new Date(cursor).toISOString(),
  };
  const env: DomainEnv = {
    state,
    services: {
      ...services,
      clock: { now: () => cursor, sleep: services.clock.sleep },
      raise: () => undefined,
    },
  };
  const random = createRandom(seed);
  const at = clock.iso();
  seedReference(env, at);
  seedCatalog(env, random, at);
  seedSupplierBuyers(env, at);
  seedActivity(env, random, clock, (daysAgo) => seedBuyerDay(env, random, clock, daysAgo));
  state.eventCounts = {};
  return state;
}
