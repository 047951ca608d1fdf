export { csvAccountingConnectorDefinition, CSV_ACCOUNTING_TYPE } from './definition.js';
export {
  csvAccountingConfigSchema,
  CSV_ENTRY_FIELDS,
  DEFAULT_CSV_COLUMNS,
  type CsvAccountingConfig,
  type CsvEntryField,
} from './config.js';
export { CsvAccountingWriter } from './writer.js';
