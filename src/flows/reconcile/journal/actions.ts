/** What a person does about each kind of difference: the last column of the report. */
import type { DifferenceKind } from '../report.js';

export const ACTIONS: Readonly<Record<DifferenceKind, string>> = {
  missing_in_books:
    'the API says these lines were exported, but the books do not hold them: look for the import file or batch ' +
    '(by its batch id) that was deleted, rolled back or never imported, and import it again or post the entry by hand',
  present_twice:
    'the books hold this more than once: the same import was posted twice; reverse the duplicate in the books',
  amount_differs:
    'the books hold another amount: correct the entry in the books to the API amount, or ask who edited it',
  account_differs:
    'the books post this on another account: correct the account in the books, or the accounts mapping of the export job',
  date_differs:
    'the books hold another date: correct the date in the books, or the value_date rule of the export job',
  not_exported_by_api:
    'the books hold an entry the API does not list as exported here: a manual entry, another period, or an export ' +
    'someone undid; check it in the books',
  unbalanced_in_books:
    'this record of the books does not balance on its own (its debits and credits differ): someone edited it by ' +
    'hand; correct it in the books so both sides carry the API amounts',
  cannot_compare:
    'fix what the detail names (a mapping table, a line the API sends broken), then reconcile again',
  missing_in_erp:
    'the API lists this order but the ERP does not hold it: run the orders job again (`supply-sync sync <job>`), or ' +
    'enter it in the ERP',
  erp_number_differs:
    'the API acknowledgement carries another ERP number than the ERP holds: check which ERP order is the real one',
};
