/** Parsing of control-plane action bodies (loose JSON objects), and the actions' seeded randomness. */
import type { DomainEnv } from './env.js';
import { invalidField } from './errors.js';
import { createRandom } from './seed/random.js';

export type Body = Record<string, unknown>;
export type Action = (body: unknown) => unknown;

export const asBody = (body: unknown): Body =>
  typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Body) : {};
export function text(body: Body, name: string): string | undefined {
  const value = body[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value === '')
    throw invalidField(name, 'invalid_format', `${name} must be a non-empty string.`);
  return value;
}
export function requiredText(body: Body, name: string): string {
  const value = text(body, name);
  if (value === undefined) throw invalidField(name, 'required', `${name} is required.`);
  return value;
}
export function count(body: Body, name: string, fallback: number, max: number): number {
  const value = body[name] ?? fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > max)
    throw invalidField(name, 'out_of_range', `${name} must be an integer from 1 to ${max}.`);
  return value;
}

/** A generator that differs per call but is fixed by the state (same state + same calls = same data). */
export const actionRandom = (env: DomainEnv) =>
  createRandom(env.state.seed ^ (env.state.nextId * 2654435761));
