export { csvSalesConfigSchema, type CsvSalesConfig } from './config.js';
export { csvSalesConnectorDefinition } from './definition.js';
export { CsvSalesSource, salesFolders, type CsvSalesFolders } from './source.js';
export { parseSalesFile, SalesFileError } from './parse.js';
