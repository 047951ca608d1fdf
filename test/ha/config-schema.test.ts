/**
 * The `ha` config block: defaults, the failover bound they give, the checks on intervals, and its JSON Schema
 * under a strict validator (ajv), with a description and valid examples on every property as the project's config
 * schema test requires.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { failoverBoundMs, haConfigSchema, haSettings } from '../../src/ha/index.js';

describe('ha config block', () => {
  it('defaults to a 10s lease renewed every third of it, polled every 2s: failover within 15s', () => {
    const settings = haSettings(haConfigSchema.parse({}));
    expect(settings).toEqual({
      instance: expect.stringMatching(new RegExp(`:${process.pid}$`)),
      leaseMs: 10_000,
      renewIntervalMs: 3_333,
      pollIntervalMs: 2_000,
      writeTimeoutMs: 4_000,
      writeMarginMs: 2_000,
    });
    expect(failoverBoundMs(settings)).toBe(12_000);
    expect(failoverBoundMs(settings)).toBeLessThanOrEqual(15_000);
  });

  it('reads durations and an instance name', () => {
    const settings = haSettings(
      haConfigSchema.parse({ instance: 'erp-sync-b', lease: '6s', renew_interval: '2s', poll_interval: 500 }),
    );
    expect(settings).toEqual({
      instance: 'erp-sync-b',
      leaseMs: 6_000,
      renewIntervalMs: 2_000,
      pollIntervalMs: 500,
      writeTimeoutMs: 2_400,
      writeMarginMs: 1_200,
    });
  });

  it.each([
    [{ lease: '500ms' }, ['lease'], 'expected a lease of at least 1s'],
    [{ lease: '10s', renew_interval: '5s' }, ['renew_interval'], 'at most 4000ms (40% of the lease)'],
    [{ poll_interval: 10 }, ['poll_interval'], 'expected a poll interval of at least 100ms'],
    [{ lease: 'soon' }, ['lease'], 'expected a duration like'],
    [
      { lease: '10s', write_timeout: '30s' },
      ['write_timeout'],
      'plus a fifth of the lease (2000ms) plus the renew interval (3333ms), 35333ms: a write starts only with its timeout and the margin left on the lease. Lower write_timeout to at most 4667ms or raise lease to at least 64286ms',
    ],
    [
      { lease: '3s', poll_interval: '5s' },
      ['poll_interval'],
      'expected a poll interval no longer than the lease (3000ms)',
    ],
    [{ leader: true }, [], 'leader'],
  ])('refuses %j, naming the key', (input, path, message) => {
    const result = haConfigSchema.safeParse(input);
    expect(result.success).toBe(false);
    const issue = result.error?.issues[0];
    expect(issue?.path).toEqual(path);
    expect(JSON.stringify(result.error?.issues)).toContain(message);
  });

  it('has a description and valid examples on every property of its JSON Schema', () => {
    // Exported as src/config/json-schema.ts does, which restores the examples zod drops from transformed fields.
    const schema = z.toJSONSchema(haConfigSchema, {
      io: 'input',
      unrepresentable: 'any',
      override: ({ zodSchema, jsonSchema }) => {
        const examples = z.globalRegistry.get(zodSchema)?.examples;
        if (Array.isArray(examples) && jsonSchema.examples === undefined) jsonSchema.examples = examples;
      },
    }) as {
      properties: Record<string, { description?: string; examples?: unknown[] }>;
    };
    const ajv = new Ajv2020({ strict: true });
    expect(Object.keys(schema.properties).sort()).toEqual([
      'instance',
      'lease',
      'poll_interval',
      'renew_interval',
      'write_timeout',
    ]);
    for (const [name, property] of Object.entries(schema.properties)) {
      expect(property.description, name).toMatch(/\w/);
      expect(property.examples?.length, name).toBeGreaterThan(0);
      const validate = ajv.compile(property);
      for (const example of property.examples ?? [])
        expect(validate(example), `${name}: ${String(example)}`).toBe(true);
      // Each example is accepted by the zod schema too.
      for (const example of property.examples ?? [])
        expect(haConfigSchema.safeParse({ [name]: example }).success).toBe(true);
    }
  });
});
