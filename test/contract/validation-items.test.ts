import { describe, expect, it } from 'vitest';
import { strict, validationItemsFrom } from '../../src/contract/index.js';

function itemsFor(schema: keyof typeof strict, body: unknown) {
  const result = strict[schema].safeParse(body);
  if (result.success) throw new Error('expected a validation failure');
  return validationItemsFrom(result.error, body);
}

describe('validation items for 422 bodies', () => {
  it('maps missing, too long, bad enum, bad format and unknown fields', () => {
    const items = itemsFor('PutProductRequest', {
      name: 'x'.repeat(201),
      package_quantity: '1.2345',
      colour: 'red',
    });
    expect(items).toEqual([
      { field: 'name', code: 'too_long', message: expect.any(String) },
      { field: 'unit', code: 'required', message: expect.any(String) },
      { field: 'package_quantity', code: 'invalid_format', message: expect.any(String) },
      { field: 'colour', code: 'unsupported_value', message: 'unknown field' },
    ]);
  });

  it('uses invalid_enum for an unknown enum value and must_be_positive from a refinement', () => {
    expect(itemsFor('FileUploadFields', { purpose: 'selfie' })).toMatchObject([
      { field: 'purpose', code: 'invalid_enum' },
    ]);
    expect(itemsFor('PutPricesRequest', { items: [{ sku: 'A', price: '0.00' }] })).toMatchObject([
      { field: 'items[0].price', code: 'must_be_positive' },
    ]);
  });

  it('reports array limits of part 8 as out_of_range', () => {
    const ids = Array.from({ length: 5001 }, (_, i) => `jl_${i}`);
    expect(itemsFor('CreateAccountingExportRequest', { journal_line_ids: ids })).toMatchObject([
      { field: 'journal_line_ids', code: 'out_of_range' },
    ]);
  });
});
