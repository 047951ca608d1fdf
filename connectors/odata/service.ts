import { randomUUID } from 'node:crypto';
import type { OdataHttp } from './http.js';
import { commitFreely, type CommitGate } from '../../src/connector-contract/commit-gate.js';
import { ConnectorError } from '../../src/connector-contract/errors.js';
import { odataErrorMessage } from './errors.js';

import type { OdataPaging } from './config.js';
import { readAllPages, type Entity, type Page } from './paging.js';

export type { Entity };

export interface Query {
  readonly filter?: string | undefined;
  readonly select?: readonly string[] | undefined;
  readonly expand?: string | undefined;
  readonly top?: number | undefined;
  /** The key, for paging by $top/$skip. */
  readonly orderBy?: readonly string[] | undefined;
}

/** The query string of a request; each option percent-encoded whole, as OData URL conventions expect. */
export function queryString(query: Query): string {
  const options: string[] = [];
  if (query.filter !== undefined) options.push(`$filter=${encodeURIComponent(query.filter)}`);
  if (query.select !== undefined && query.select.length > 0) {
    options.push(`$select=${encodeURIComponent(query.select.join(','))}`);
  }
  if (query.expand !== undefined) options.push(`$expand=${encodeURIComponent(query.expand)}`);
  if (query.top !== undefined) options.push(`$top=${query.top}`);
  return options.length === 0 ? '' : `?${options.join('&')}`;
}

/**
 * Reads, writes and change sets over OdataHttp, in OData JSON (v4 `value`/`@odata.nextLink`, v3 `odata.nextLink`).
 * Each write (a create, a PATCH, an action, a change set) asks the commit gate right before each attempt of its
 * request (the repeat after a new sign-in included): an ERP request cannot be rolled back, so a refused gate means
 * the request is never sent, and the gate's error is what the caller sees, unchanged. The attempt is cut at the
 * end of what the gate allowed: a cut request is a failure of unknown outcome (retryable), which the order sink
 * resolves by finding the order before any new create.
 */
export class OdataService {
  constructor(
    readonly http: OdataHttp,
    private readonly connector: string,
    private readonly mayCommit: CommitGate = commitFreely,
    private readonly paging: OdataPaging = { mode: 'next_link', page_size: 500 },
  ) {}

  /** Every entity of a collection, paged as entities.paging says; with `top`, only the first page. */
  async list(entitySet: string, query: Query, what: string): Promise<Entity[]> {
    const base = `${entitySet}${queryString(query)}`;
    if (query.top !== undefined) return (await this.#page(base, what)).entities;
    return readAllPages(
      this.paging,
      { base, orderBy: query.orderBy, what },
      (target) => this.#page(target, what),
      this.connector,
    );
  }

  async #page(target: string, what: string): Promise<Page> {
    const response = await this.http.send('GET', target, { what });
    const page = response.body as Record<string, unknown> | null;
    const value = page?.['value'];
    if (!Array.isArray(value)) throw this.#invalid(what, 'the answer has no value list');
    const link = page?.['@odata.nextLink'] ?? page?.['odata.nextLink'];
    return { entities: value as Entity[], nextLink: typeof link === 'string' ? link : null };
  }

  async create(path: string, entity: Entity, what: string): Promise<Entity> {
    const response = await this.http.send('POST', path, {
      body: JSON.stringify(entity),
      contentType: 'application/json',
      what,
      gate: this.mayCommit,
    });
    if (typeof response.body !== 'object' || response.body === null)
      throw this.#invalid(what, 'no entity returned');
    return response.body as Entity;
  }

  async patch(path: string, changes: Entity, what: string): Promise<void> {
    await this.http.send('PATCH', path, {
      body: JSON.stringify(changes),
      contentType: 'application/json',
      what,
      gate: this.mayCommit,
    });
  }

  async action(path: string, what: string): Promise<void> {
    await this.http.send('POST', path, { what, gate: this.mayCommit });
  }

  /**
   * One $batch change set: the service applies all of its requests or none. Returns the first entity created.
   * `requests` may refer to the entity the first creates as `$1`.
   */
  async changeSet(requests: ReadonlyArray<{ path: string; entity: Entity }>, what: string): Promise<Entity> {
    const batch = `batch_${randomUUID()}`;
    const changeset = `changeset_${randomUUID()}`;
    const parts = requests.map(
      (request, index) =>
        `--${changeset}\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n` +
        `Content-ID: ${index + 1}\r\n\r\nPOST ${request.path} HTTP/1.1\r\nContent-Type: application/json\r\n\r\n` +
        `${JSON.stringify(request.entity)}\r\n`,
    );
    const body =
      `--${batch}\r\nContent-Type: multipart/mixed; boundary=${changeset}\r\n\r\n` +
      `${parts.join('')}--${changeset}--\r\n--${batch}--\r\n`;
    const response = await this.http.send('POST', '$batch', {
      body,
      contentType: `multipart/mixed; boundary=${batch}`,
      what,
      gate: this.mayCommit,
    });
    const answers = parseBatchAnswers(response.text);
    const failed = answers.find((answer) => answer.status >= 400);
    if (failed !== undefined) {
      const said = odataErrorMessage(failed.body);
      throw new ConnectorError(
        'connector_statement_failed',
        `${what}: the change set failed with HTTP ${failed.status}${said === undefined ? '' : `: ${said}`}`,
        {
          connector: this.connector,
          retryable: failed.status === 429 || failed.status >= 500,
        },
      );
    }
    const first = answers[0]?.body;
    if (typeof first !== 'object' || first === null)
      throw this.#invalid(what, 'the change set returned no entity');
    return first as Entity;
  }

  #invalid(what: string, message: string): ConnectorError {
    return new ConnectorError('connector_result_invalid', `${what}: ${message}`, {
      connector: this.connector,
      retryable: false,
    });
  }
}

/** The status and JSON body of each HTTP response inside a multipart $batch answer. */
export function parseBatchAnswers(text: string): Array<{ status: number; body: unknown }> {
  const answers: Array<{ status: number; body: unknown }> = [];
  for (const part of text.split(/\r?\n--[^\r\n]*/)) {
    const status = /HTTP\/1\.1 (\d{3})/.exec(part);
    if (status === null) continue;
    const afterStatus = part.slice(status.index);
    const blank = /\r?\n\r?\n/.exec(afterStatus);
    const raw = blank === null ? '' : afterStatus.slice(blank.index + blank[0].length).trim();
    let body: unknown = null;
    try {
      body = raw === '' ? null : (JSON.parse(raw) as unknown);
    } catch {
      body = null;
    }
    answers.push({ status: Number(status[1]), body });
  }
  return answers;
}
