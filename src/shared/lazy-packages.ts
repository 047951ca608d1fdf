/**
 * The large packages (undici, nodemailer, pg), loaded at their first use: a CLI command that sends no request,
 * no mail and opens no PostgreSQL session never compiles them (CLI start-up cost).
 */
import type * as Nodemailer from 'nodemailer';
import type * as Pg from 'pg';
import type * as Undici from 'undici';

/** The value `create` gives, created at the first `get()` and shared by every later one. */
export interface Lazy<T> {
  get(): Promise<T>;
  /** The creation under way or done, or undefined when nothing asked for the value yet. */
  started(): Promise<T> | undefined;
}

export function lazy<T>(create: () => Promise<T>): Lazy<T> {
  let value: Promise<T> | undefined;
  return {
    get: () => (value ??= create()),
    started: () => value,
  };
}

/**
 * A CommonJS package's exports: Node gives them both as named exports and as `default`, a bundle's chunk (the test
 * suite's esbuild build) as `default` only.
 */
function commonJsExports<T extends object>(namespace: T): T {
  const { default: exports } = namespace as { default?: unknown };
  return typeof exports === 'object' && exports !== null ? (exports as T) : namespace;
}

const undici = lazy(async () => commonJsExports(await import('undici')));
const nodemailer = lazy(() => import('nodemailer'));
const pg = lazy(() => import('pg'));

export const loadUndici = (): Promise<typeof Undici> => undici.get();
export const loadNodemailer = (): Promise<typeof Nodemailer> => nodemailer.get();
export const loadPg = (): Promise<typeof Pg> => pg.get();
