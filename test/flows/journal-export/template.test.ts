import { describe, expect, it } from 'vitest';
import { compileTemplate, TemplateError } from '../../../src/flows/shared/journal-mapping/template.js';

const allowed = ['description', 'document_number', 'vendor_id'];

describe('journal-export description templates', () => {
  it('fills each field, blanks a missing one, collapses whitespace and trims', () => {
    const describe = compileTemplate(' {document_number}:  {description} ({vendor_id}) ', allowed);
    expect(describe({ document_number: 'INV-7', description: ' fresh\t veg ', vendor_id: null })).toBe(
      'INV-7: fresh veg ()',
    );
    expect(describe({})).toBe(': ()');
  });

  it('copies values as they are, with replacement patterns and braces, and fields next to each other', () => {
    const describe = compileTemplate('{description}{document_number}', allowed);
    expect(describe({ description: '$& $1 $$', document_number: '{vendor_id}' })).toBe('$& $1 $${vendor_id}');
    expect(compileTemplate('no fields', allowed)({ description: 'x' })).toBe('no fields');
  });

  it('refuses an unknown field when compiled', () => {
    expect(() => compileTemplate('{description} {vendor}', allowed)).toThrow(TemplateError);
  });
});
