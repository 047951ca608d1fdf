export { csvExpensesConfigSchema, type CsvExpensesConfig } from './config.js';
export { csvExpensesConnectorDefinition } from './definition.js';
export { CsvExpenseSource, expenseFolders, type CsvExpenseFolders } from './source.js';
export { parseExpenseFile, ExpenseFileError, type ParsedExpense } from './parse.js';
export { SENT_LEDGER, SentLedger } from './sent-ledger.js';
export { dropDemoExpenses } from './demo.js';
