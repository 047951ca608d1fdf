/** Random identifiers and a small seedable generator for repeatable fault injection and seeded keys. */
import { createHmac, randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

function encode(bytes: Buffer, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[(bytes[i] ?? 0) % ALPHABET.length];
  return out;
}

// Random bytes drawn in blocks: one call per id was a visible cost when an export raises thousands of events.
const POOL_SIZE = 65_536;
let pool = Buffer.alloc(0);
let poolOffset = 0;

function randomCharacters(length: number): string {
  if (poolOffset + length > pool.length) {
    pool = randomBytes(POOL_SIZE);
    poolOffset = 0;
  }
  let out = '';
  for (let i = poolOffset; i < poolOffset + length; i++) out += ALPHABET[(pool[i] ?? 0) % ALPHABET.length];
  poolOffset += length;
  return out;
}

/** `prefix_` followed by 20 random characters. */
export function newId(prefix: string): string {
  return `${prefix}_${randomCharacters(20)}`;
}

/** Random string of `length` characters; derived from `seed` and `label` when a seed is given. */
export function secretString(length: number, seed: string | undefined, label: string): string {
  const bytes =
    seed === undefined
      ? randomBytes(length)
      : createHmac('sha256', seed).update(label).digest().subarray(0, length);
  return encode(Buffer.concat([bytes, randomBytes(Math.max(0, length - bytes.length))]), length);
}

/** mulberry32: a tiny deterministic generator in [0, 1). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
