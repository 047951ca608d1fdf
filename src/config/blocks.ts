/** Second validation pass: connector blocks and job options against the schemas registered for them. */
import type * as z from 'zod';
import { closestMatch } from './did-you-mean.js';
import { formatPath, type ConfigIssue } from './errors.js';
import { defaultWriteTimeoutMs } from './ha-schema.js';
import { configErrorMap, toConfigIssues, type IssueContext } from './issues.js';
import type { FlowSchema, PluginSchemas } from './plugin-schemas.js';
import { schemaAtPath, type PathSegment } from './schema-walk.js';
import type { ConfigSource } from './source.js';

export interface ConnectorBlock {
  readonly type: string;
  readonly [key: string]: unknown;
}

export interface JobBlock {
  readonly flow: string;
  readonly connector?: string | undefined;
  /** As written in the file; once validated, what the flow's options schema made of it. */
  readonly options: unknown;
}

export class BlockValidator {
  readonly warnings: string[] = [];

  constructor(
    private readonly source: ConfigSource,
    private readonly registry: PluginSchemas,
    private readonly issues: ConfigIssue[],
    private readonly reported: ReadonlySet<string>,
  ) {}

  issueAt(path: readonly PathSegment[], message: string, preferKey = false): void {
    this.issues.push({
      file: this.source.file,
      ...this.source.locate(path, preferKey),
      path: formatPath(path),
      message,
    });
  }

  /** Parses `data` with `schema`, recording issues under `prefix`; undefined when it failed. */
  validate(schema: z.ZodType, data: unknown, prefix: readonly PathSegment[]): unknown {
    const result = schema.safeParse(data, { error: configErrorMap });
    if (result.success) return result.data;
    const context: IssueContext = {
      source: this.source,
      prefix,
      data,
      schemaAt: (path) => schemaAtPath(schema, path),
    };
    // A path reported already (say, a missing environment variable) is not reported twice.
    const found = toConfigIssues(result.error.issues, context).filter(
      (issue) => !this.reported.has(issue.path),
    );
    this.issues.push(...found);
    return undefined;
  }

  connectors(blocks: Record<string, ConnectorBlock>): Record<string, ConnectorBlock> {
    const out: Record<string, ConnectorBlock> = {};
    for (const [name, block] of Object.entries(blocks)) {
      const registration = this.registry.connector(block.type);
      if (!registration) {
        const suggestion = closestMatch(block.type, this.registry.connectorTypes());
        if (suggestion) {
          this.issueAt(
            ['connectors', name, 'type'],
            `unknown connector type "${block.type}"; did you mean "${suggestion}"?`,
          );
        } else {
          this.warnings.push(
            `connectors.${name}: type "${block.type}" has no registered schema, so its settings were not checked`,
          );
        }
        out[name] = block;
        continue;
      }
      // Connector schemas describe the block without `type`.
      const { type, ...settings } = block;
      const parsed = this.validate(registration.configSchema, settings, ['connectors', name]);
      if (parsed !== undefined) out[name] = { ...(parsed as Record<string, unknown>), type };
    }
    return out;
  }

  /**
   * Under `ha`, a connector write request (one that cannot be rolled back, as an ERP API's) is cut at what the
   * lease allows a write, `ha.write_timeout` (40% of the lease by default): a longer configured timeout is warned
   * of, since such a request counts as failed, with an unknown outcome, once the allowance ends.
   */
  writeTimeouts(
    ha: { lease: number; write_timeout?: number | undefined } | undefined,
    connectors: Record<string, ConnectorBlock>,
  ): void {
    if (ha === undefined || this.registry.writeRequestTimeout === undefined) return;
    const allowedMs = ha.write_timeout ?? defaultWriteTimeoutMs(ha.lease);
    for (const [name, block] of Object.entries(connectors)) {
      if (this.registry.connector(block.type) === undefined) continue;
      const { type, ...settings } = block;
      const timeout = this.registry.writeRequestTimeout(type, settings);
      if (timeout === undefined || timeout.ms <= allowedMs) continue;
      const key = `connectors.${name}.${timeout.key}`;
      this.warnings.push(
        `${this.source.file}: ${key} (${timeout.ms}ms) is longer than the ${allowedMs}ms the lease allows one write ` +
          `(ha.write_timeout, 40% of ha.lease by default): each write request of connector ${name} is cut there ` +
          `and then counts as failed with an unknown outcome (the order is looked up before any new create), while ` +
          `reads keep the full timeout. Set ${key} to at most ${allowedMs}ms if the ERP answers writes within it, ` +
          `or raise ha.lease (and ha.write_timeout) if its writes need longer`,
      );
    }
  }

  /**
   * Checks each job's connector reference, its options (replaced by what the flow's schema made of them, so they
   * are parsed here once) and that its connector offers the capabilities its flow requires.
   */
  jobs<J extends JobBlock>(
    jobs: Record<string, J>,
    rawConnectors: Record<string, ConnectorBlock>,
    connectors: Record<string, ConnectorBlock>,
  ): Record<string, J> {
    const out: Record<string, J> = {};
    for (const [name, job] of Object.entries(jobs)) {
      out[name] = job;
      if (job.connector !== undefined && !(job.connector in rawConnectors)) {
        const defined = Object.keys(rawConnectors);
        const suggestion = closestMatch(job.connector, defined);
        const hint = suggestion
          ? `; did you mean "${suggestion}"?`
          : ` (defined: ${defined.join(', ') || 'none'})`;
        this.issueAt(['jobs', name, 'connector'], `no connector named "${job.connector}"${hint}`);
      }
      const flow = this.registry.flow(job.flow);
      if (!flow) {
        const suggestion = closestMatch(job.flow, this.registry.flowNames());
        if (suggestion)
          this.issueAt(['jobs', name, 'flow'], `unknown flow "${job.flow}"; did you mean "${suggestion}"?`);
        else
          this.warnings.push(
            `jobs.${name}: flow "${job.flow}" has no registered schema, so its options were not checked`,
          );
        continue;
      }
      this.capabilities(name, job, flow, connectors);
      const options = this.validate(flow.options, job.options, ['jobs', name, 'options']);
      if (options !== undefined) out[name] = { ...job, options: options as J['options'] };
    }
    return out;
  }

  /**
   * A job option that names a mapping table (`<value>_mapping`, or the journal's `mappings.<kind>`) as written in the
   * file, naming no table under `mappings:`: most likely a misspelling, which a flow would otherwise read as an empty
   * table and hold back or send unmapped every record. Warned of, with the closest table's name.
   */
  mappingTables(jobs: Record<string, JobBlock>, tables: readonly string[]): void {
    for (const [name, job] of Object.entries(jobs)) {
      for (const { key, table } of namedTables(job.options)) {
        if (tables.includes(table)) continue;
        const suggestion = closestMatch(table, tables);
        const hint = suggestion
          ? `; did you mean "${suggestion}"?`
          : ` (tables: ${tables.join(', ') || 'none'})`;
        this.warnings.push(
          `${this.source.file}: jobs.${name}.options.${key} names the table "${table}", which is not under ` +
            `mappings:${hint} Add the table or correct the name`,
        );
      }
    }
  }

  /** The job's connector must offer what its flow requires (as far as the connector's block tells). */
  private capabilities(
    jobName: string,
    job: JobBlock,
    flow: FlowSchema,
    connectors: Record<string, ConnectorBlock>,
  ): void {
    if (flow.requires.length === 0) return;
    const path = ['jobs', jobName, 'connector'];
    if (job.connector === undefined) {
      const defined = Object.keys(connectors);
      this.issueAt(
        path,
        `the ${flow.flow} flow needs a connector offering ${flow.requires.join(', ')}; name one of the connectors: entries (defined: ${defined.join(', ') || 'none'})`,
        true,
      );
      return;
    }
    const block = connectors[job.connector];
    // An unknown connector, an unregistered type or an invalid block is reported already.
    if (block === undefined || this.registry.connector(block.type) === undefined) return;
    const { type, ...settings } = block;
    const offered = this.registry.offeredCapabilities(type, settings);
    const missing = flow.requires.filter((capability) => !offered.includes(capability));
    if (missing.length === 0) return;
    this.issueAt(
      path,
      `connector "${job.connector}" (type ${type}) does not offer ${missing.join(', ')}, which the ${flow.flow} flow requires; ` +
        `it offers ${offered.join(', ') || 'nothing'} as configured. Configure connectors.${job.connector} to offer it or name a connector that does`,
    );
  }
}

/** Connector blocks and jobs read straight from the file, used when the core pass failed, to report more at once. */
export function rawBlocks(data: unknown): {
  connectors: Record<string, ConnectorBlock>;
  jobs: Record<string, JobBlock>;
} {
  const record = (value: unknown): Record<string, unknown> =>
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  const root = record(data);
  const connectors: Record<string, ConnectorBlock> = {};
  for (const [name, block] of Object.entries(record(root['connectors']))) {
    const type = record(block)['type'];
    if (typeof type === 'string') connectors[name] = { ...record(block), type };
  }
  const jobs: Record<string, JobBlock> = {};
  for (const [name, block] of Object.entries(record(root['jobs']))) {
    const { flow, options } = record(block);
    if (typeof flow === 'string') jobs[name] = { flow, options: record(options) };
  }
  return { connectors, jobs };
}

/** The mapping tables a job's options name as written: `<value>_mapping: <table>` and `mappings: { <kind>: <table> }`. */
function namedTables(options: unknown): Array<{ key: string; table: string }> {
  if (options === null || typeof options !== 'object') return [];
  const named: Array<{ key: string; table: string }> = [];
  for (const [key, value] of Object.entries(options)) {
    if (key.endsWith('_mapping') && typeof value === 'string') named.push({ key, table: value });
  }
  const nested = (options as { mappings?: unknown }).mappings;
  if (nested !== null && typeof nested === 'object') {
    for (const [kind, value] of Object.entries(nested)) {
      if (typeof value === 'string') named.push({ key: `mappings.${kind}`, table: value });
    }
  }
  return named;
}
