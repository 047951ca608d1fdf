import { describe, expect, it } from 'vitest';
import {
  REQUEST_SCHEMA_NAMES,
  RESOURCE_SCHEMA_NAMES,
  requestJsonSchemas,
  resourceJsonSchemas,
} from '../../src/contract/index.js';

describe('JSON Schema export', () => {
  it('produces an object schema for each resource', () => {
    const schemas = resourceJsonSchemas();
    expect(Object.keys(schemas).sort()).toEqual([...RESOURCE_SCHEMA_NAMES].sort());
    for (const [name, schema] of Object.entries(schemas)) {
      expect(schema['type'], name).toBe('object');
      expect(schema['$schema'], name).toBe('https://json-schema.org/draft/2020-12/schema');
    }
  });

  it('describes required fields, enums, formats and strictness', () => {
    const order = resourceJsonSchemas()['Order'];
    expect(order?.['required']).toEqual(
      expect.arrayContaining([
        'id',
        'number',
        'status',
        'buyer',
        'supplier',
        'delivery_date',
        'currency',
        'totals',
      ]),
    );
    expect(order?.['additionalProperties']).toBe(false);
    const properties = order?.['properties'] as Record<string, Record<string, unknown>>;
    expect(properties['status']?.['enum']).toContain('cancelled_after_approval');
    expect(properties['created_at']?.['format']).toBe('date-time');
  });

  it('produces a schema for each request body', () => {
    const schemas = requestJsonSchemas();
    expect(Object.keys(schemas)).toHaveLength(REQUEST_SCHEMA_NAMES.length);
    expect(schemas['CreateDocumentRequest']?.['required']).toEqual(
      expect.arrayContaining(['type', 'number', 'date', 'buyer_id', 'currency', 'totals', 'lines']),
    );
  });
});
