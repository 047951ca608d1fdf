/**
 * An office's one port: each company's operations endpoints under /companies/<name>/ (its status page, metrics,
 * control API and webhook path, exactly as a daemon of its own serves them), and the office's own /healthz,
 * /readyz, /metrics (every company's, labelled `company`) and /status (one row per company, worst first).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { AggregatorRegistry, Registry } from 'prom-client';
import type { OpsAccessCheck } from '../../ops/auth.js';
import { processMetrics, type RequestHandler } from '../../ops/index.js';
import { listenerUrl } from '../../ops/listen-url.js';
import { setSecurityHeaders } from '../../ops/security-headers.js';
import { requestUrl } from '../../shared/request-url.js';
import type { OpsMount } from '../services/ops-server-service.js';
import {
  officeRows,
  renderOfficeHtml,
  type CompanyEntry,
  type CompanyPlacement,
  type CompanyRow,
  type OfficeInstances,
} from './office-status.js';

export interface OfficeHostOptions {
  readonly host: string;
  readonly port: number;
  readonly access: OpsAccessCheck;
  /** Whether this caller sees which companies are not ready, or only the office's state. */
  readonly details: (req: IncomingMessage) => boolean;
  readonly companies: () => readonly CompanyEntry[];
  readonly logger: Logger;
  /** With several office processes sharing the companies: who they are as this one sees them. */
  readonly instances?: (() => OfficeInstances) | undefined;
  /** With several office processes: where each company is assigned, for the companies that did not start here. */
  readonly placement?: CompanyPlacement | undefined;
}

const COMPANY_PATH = /^\/companies\/([^/]+)(\/.*)?$/;
const ROWS_MAX_AGE_MS = 2_000;

export class OfficeHost {
  readonly #handlers = new Map<string, RequestHandler>();
  #rows: { readonly at: number; readonly rows: Promise<CompanyRow[]> } | undefined;
  /** The process's own metrics (CPU, memory, event loop), once for the office, without a company. */
  readonly #process = new Registry();
  readonly #server: Server;
  #url: string | undefined;

  constructor(private readonly options: OfficeHostOptions) {
    processMetrics(this.#process);
    this.#server = createServer((req, res) => {
      setSecurityHeaders(res);
      this.#handle(req, res).catch((error: unknown) => {
        options.logger.error({ err: error, url: req.url }, 'office request failed');
        if (!res.headersSent) json(res, 500, { error: 'internal_error' });
        else res.destroy();
      });
    });
  }

  get url(): string {
    if (this.#url === undefined) throw new Error('the office server is not listening');
    return this.#url;
  }

  listen(): Promise<string> {
    const { host, port } = this.options;
    return new Promise((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(port, host, () => {
        this.#server.off('error', reject);
        this.#url = listenerUrl('http', host, (this.#server.address() as AddressInfo).port);
        resolve(this.#url);
      });
    });
  }

  /** Where one company's daemon serves its endpoints: under /companies/<name>/ of this server. */
  mountFor(company: string): OpsMount {
    return {
      attach: (handler) => {
        this.#handlers.set(company, handler);
        return {
          url: `${this.url}/companies/${encodeURIComponent(company)}`,
          // A company restarted by a reload has mounted its new handler already: only this one's is removed.
          detach: () => {
            if (this.#handlers.get(company) === handler) this.#handlers.delete(company);
          },
        };
      },
    };
  }

  close(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#server.close((error) => (error ? reject(error) : resolve()));
      this.#server.closeIdleConnections();
    });
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = requestUrl(req);
    if (url === null) return json(res, 400, { error: 'bad_request_target' });
    const company = COMPANY_PATH.exec(url.pathname);
    if (company !== null) return this.#toCompany(req, res, company[1] ?? '', company[2], url);
    if (this.options.access(req, url.pathname, res)) return;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('allow', 'GET, HEAD');
      return json(res, 405, { error: 'method_not_allowed' });
    }
    if (url.pathname === '/healthz') return json(res, 200, { status: 'ok' });
    if (url.pathname === '/readyz') return this.#readiness(req, res);
    if (url.pathname === '/metrics') return this.#metrics(res);
    if (url.pathname === '/status') return this.#status(req, res);
    json(res, 404, { error: 'not_found' });
  }

  /** The company's own handler sees its paths as a daemon of its own would: /status, /webhooks, /jobs/... */
  #toCompany(
    req: IncomingMessage,
    res: ServerResponse,
    encoded: string,
    rest: string | undefined,
    url: URL,
  ): void {
    const handler = this.#handlers.get(decodedName(encoded));
    if (handler === undefined) {
      // Answered as a company's own status page would be, so a caller without credentials cannot list the companies.
      if (this.options.access(req, '/status', res)) return;
      return json(res, 404, { error: 'not_found' });
    }
    req.url = `${rest ?? '/'}${url.search}`;
    handler(req, res);
  }

  /**
   * Ready when every company runs and is ready itself; `paused` (still ready, as a single daemon says it) when an
   * operator paused a job of one. A signed-in caller sees which companies are not ready and why, which have paused
   * jobs, and which no office instance runs at the moment (between two instances, for at most a lease).
   */
  async #readiness(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const rows = await this.#recentRows();
    const notReady = rows.filter((row) => !row.ready);
    const paused = rows.filter((row) => row.jobs.some((job) => job.paused));
    const status = notReady.length > 0 ? 'not_ready' : paused.length > 0 ? 'paused' : 'ready';
    const detail = this.options.details(req)
      ? {
          companies: notReady.map((row) => ({
            company: row.company,
            state: row.state,
            reason: row.headline,
          })),
          paused: paused.map((row) => ({
            company: row.company,
            jobs: row.jobs.filter((job) => job.paused).map((job) => job.name),
          })),
          runByNoInstance: rows.filter((row) => row.runsOn?.instance === null).map((row) => row.company),
        }
      : {};
    json(res, status === 'not_ready' ? 503 : 200, { status, ...detail });
  }

  /** The companies' rows, at most ROWS_MAX_AGE_MS old: a prober's calls do not each read every company. */
  #recentRows(): Promise<CompanyRow[]> {
    const now = Date.now();
    if (this.#rows === undefined || now - this.#rows.at > ROWS_MAX_AGE_MS) {
      this.#rows = { at: now, rows: officeRows(this.options.companies(), this.options.placement) };
    }
    return this.#rows.rows;
  }

  async #metrics(res: ServerResponse): Promise<void> {
    const registries = [
      this.#process,
      ...this.options
        .companies()
        .flatMap((entry) => (entry.daemon === undefined ? [] : [entry.daemon.metrics.registry])),
    ];
    const merged = AggregatorRegistry.aggregate(
      await Promise.all(registries.map((r) => r.getMetricsAsJSON())),
    );
    res.writeHead(200, { 'content-type': merged.contentType });
    res.end(await merged.metrics());
  }

  async #status(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const rows = await officeRows(this.options.companies(), this.options.placement);
    const instances = this.options.instances?.();
    const accept = req.headers.accept ?? '';
    if (/\bapplication\/json\b/i.test(accept) && !/\btext\/html\b/i.test(accept)) {
      const shared = instances === undefined ? {} : { instances };
      return json(res, 200, { generatedAt: new Date().toISOString(), ...shared, companies: rows });
    }
    const html = renderOfficeHtml(rows, instances);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end(html);
  }
}

/** A company name from the path; a malformed escape names no company. */
function decodedName(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return '';
  }
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}
