/**
 * The elector's own PostgreSQL session, apart from the state store's: renewals must not queue behind job
 * transactions on a shared connection. Every statement has a deadline on both sides (statement and lock timeouts
 * on the server, a timer here that destroys the socket), so a silent network or a frozen server shows up as an
 * error within `timeoutMs` of the statement's turn (statements on the session take turns, so one given behind
 * another waits for that one too), never as a renewal that hangs. Any failure drops the session; the next call reconnects.
 */
import type pg from 'pg';
import { loadPg } from '../shared/lazy-packages.js';
import { leaseDatabaseError } from './errors.js';
import { RELEASE_CHANNEL } from './lease-sql.js';

export interface LeaseConnectionOptions {
  /** state.url, password included; it leaves this module only inside pg. */
  readonly url: string;
  readonly timeoutMs: number;
  readonly applicationName: string;
  /** A leader released its lease (LISTEN on the release channel). */
  readonly onRelease: () => void;
  /** The channel listened to; the lease's release channel by default. */
  readonly channel?: string;
}

export class LeaseConnection {
  readonly #options: LeaseConnectionOptions;
  #client: pg.Client | null = null;
  #connecting: Promise<pg.Client> | null = null;
  #closed = false;
  /**
   * The statements given so far, in turn: pg queues each statement on the session, so one given while a
   * transaction is open would run inside it (and be undone by its rollback).
   */
  #turn: Promise<unknown> = Promise.resolve();

  constructor(options: LeaseConnectionOptions) {
    this.#options = options;
  }

  /** Runs one statement; rejects with a LeaseDatabaseError (one line, no password). */
  query<Row>(sql: string, params: readonly unknown[] = []): Promise<Row[]> {
    return this.#inTurn(() => this.#query<Row>(sql, params));
  }

  /** Runs statements in one transaction (the table's creation). */
  transaction(statements: readonly string[]): Promise<void> {
    return this.#inTurn(() => this.#transaction(statements));
  }

  #inTurn<T>(work: () => Promise<T>): Promise<T> {
    const result = this.#turn.then(work, work);
    this.#turn = result.catch(() => undefined);
    return result;
  }

  async #query<Row>(sql: string, params: readonly unknown[]): Promise<Row[]> {
    let client: pg.Client | undefined;
    try {
      client = await this.#connected();
      const result = await this.#withDeadline(client, client.query(sql, [...params]));
      return result.rows as Row[];
    } catch (error) {
      if (client !== undefined) this.#drop(client);
      throw leaseDatabaseError(this.#options.url, error);
    }
  }

  async #transaction(statements: readonly string[]): Promise<void> {
    let client: pg.Client | undefined;
    try {
      client = await this.#connected();
      const session = client;
      await this.#withDeadline(
        session,
        (async () => {
          await session.query('BEGIN');
          try {
            for (const sql of statements) await session.query(sql);
            await session.query('COMMIT');
          } catch (error) {
            await session.query('ROLLBACK').catch(() => undefined);
            throw error;
          }
        })(),
      );
    } catch (error) {
      if (client !== undefined) this.#drop(client);
      throw leaseDatabaseError(this.#options.url, error);
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    const client = this.#client ?? (await this.#connecting?.catch(() => null)) ?? null;
    this.#client = null;
    if (client === null) return;
    const ended = client.end().catch(() => undefined);
    const timer = setTimeout(() => client.connection.stream.destroy(), this.#options.timeoutMs);
    await ended;
    clearTimeout(timer);
  }

  #connected(): Promise<pg.Client> {
    if (this.#closed) return Promise.reject(new Error('the leader lease connection is closed'));
    if (this.#client !== null) return Promise.resolve(this.#client);
    this.#connecting ??= this.#connect().finally(() => {
      this.#connecting = null;
    });
    return this.#connecting;
  }

  async #connect(): Promise<pg.Client> {
    const timeout = this.#options.timeoutMs;
    const { default: driver } = await loadPg();
    const client = new driver.Client({
      connectionString: this.#options.url,
      connectionTimeoutMillis: timeout,
      // The server gives up first, so a statement stuck behind a lock reports that, not a lost connection.
      lock_timeout: Math.floor(timeout / 2),
      statement_timeout: Math.floor((timeout * 3) / 4),
      keepAlive: true,
      keepAliveInitialDelayMillis: timeout,
      application_name: this.#options.applicationName,
    });
    // An idle session that breaks must not crash the process: the next statement reconnects.
    client.on('error', () => this.#drop(client));
    client.on('end', () => this.#drop(client));
    client.on('notification', (message) => {
      if (message.channel === this.#channel()) this.#options.onRelease();
    });
    try {
      await client.connect();
      await this.#withDeadline(client, client.query(`LISTEN ${this.#channel()}`));
    } catch (error) {
      this.#drop(client);
      throw error;
    }
    if (this.#closed) {
      this.#drop(client);
      throw new Error('the leader lease connection is closed');
    }
    this.#client = client;
    return client;
  }

  #channel(): string {
    return this.#options.channel ?? RELEASE_CHANNEL;
  }

  #withDeadline<T>(client: pg.Client, work: Promise<T>): Promise<T> {
    const timeout = this.#options.timeoutMs;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#drop(client);
        reject(new Error(`no answer within ${timeout}ms (timeout)`));
      }, timeout);
      work.then(
        (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      );
    });
  }

  #drop(client: pg.Client): void {
    if (this.#client === client) this.#client = null;
    client.removeAllListeners('notification');
    // Not end(): on a dead network it would wait for an answer that never comes.
    client.connection.stream.destroy();
  }
}
