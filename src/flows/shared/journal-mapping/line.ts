/** A journal line as the export stages it and its mapping reads it. */
import type { JournalLine } from '../../../contract/index.js';

/**
 * The fields of a journal line the mapper and the dead letters read, in the order they are staged (encodeFields
 * and decodeLine spell them out in this order; the types check each value against its field's type).
 */
export type StagedFields = FieldList<
  [
    'document_type',
    'document_number',
    'source',
    'side',
    'account',
    'counter_account',
    'amount',
    'currency',
    'description',
    'vendor_id',
    'vendor_tax_id',
    'branch_id',
    'purchase_type',
    'reference',
    'allocation_number',
    'doc_date',
    'accounting_period',
    'movement_type_code',
  ]
>;
type FieldList<Fields extends readonly (keyof JournalLine)[]> = Fields;
export type StagedField = StagedFields[number];

/** A journal line as staged: its id, its document and the fields the export reads (absent ones are null). */
export type StagedLine = Pick<JournalLine, 'id' | 'document_id' | StagedField>;
