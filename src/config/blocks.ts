/** Second validation pass: connector blocks and job options against the schemas registered for them. */
import type { z } from 'zod';
import { closestMatch } from './did-you-mean.js';
import { formatPath, type ConfigIssue } from './errors.js';
import { configErrorMap, toConfigIssues, type IssueContext } from './issues.js';
import type { SchemaRegistry } from './registry.js';
import { objectKeys, schemaAtPath, type PathSegment } from './schema-walk.js';
import type { ConfigSource } from './source.js';

export interface ConnectorBlock {
  readonly type: string;
  readonly [key: string]: unknown;
}

export interface JobBlock {
  readonly flow: string;
  readonly connector?: string | undefined;
  readonly options: Record<string, unknown>;
}

export class BlockValidator {
  readonly warnings: string[] = [];

  constructor(
    private readonly source: ConfigSource,
    private readonly registry: SchemaRegistry,
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
      // Connector schemas normally describe the block without `type`; accept ones that include it too.
      const { type, ...settings } = block;
      const input = objectKeys(registration.schema).includes('type') ? block : settings;
      const parsed = this.validate(registration.schema, input, ['connectors', name]);
      if (parsed !== undefined) out[name] = { ...(parsed as Record<string, unknown>), type };
    }
    return out;
  }

  jobs<J extends JobBlock>(
    jobs: Record<string, J>,
    connectors: Record<string, ConnectorBlock>,
  ): Record<string, J> {
    const out: Record<string, J> = {};
    for (const [name, job] of Object.entries(jobs)) {
      out[name] = job;
      if (job.connector !== undefined && !(job.connector in connectors)) {
        const defined = Object.keys(connectors);
        const suggestion = closestMatch(job.connector, defined);
        const hint = suggestion
          ? `; did you mean "${suggestion}"?`
          : ` (defined: ${defined.join(', ') || 'none'})`;
        this.issueAt(['jobs', name, 'connector'], `no connector named "${job.connector}"${hint}`);
      }
      const registration = this.registry.flow(job.flow);
      if (!registration) {
        const suggestion = closestMatch(job.flow, this.registry.flows());
        if (suggestion)
          this.issueAt(['jobs', name, 'flow'], `unknown flow "${job.flow}"; did you mean "${suggestion}"?`);
        else
          this.warnings.push(
            `jobs.${name}: flow "${job.flow}" has no registered schema, so its options were not checked`,
          );
        continue;
      }
      const connectorType = job.connector === undefined ? undefined : connectors[job.connector]?.type;
      const allowed = registration.connectorTypes ?? [];
      if (connectorType !== undefined && allowed.length > 0 && !allowed.includes(connectorType)) {
        this.issueAt(
          ['jobs', name, 'connector'],
          `flow ${job.flow} works with connector types ${allowed.join(', ')}, not "${connectorType}"`,
        );
      }
      const options = this.validate(registration.options, job.options, ['jobs', name, 'options']);
      if (options !== undefined) out[name] = { ...job, options: options as Record<string, unknown> };
    }
    return out;
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
