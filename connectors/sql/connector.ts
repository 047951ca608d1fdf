/**
 * A connector over one SQL database: the capabilities its statements, journal table and mirror settings enable,
 * its doctor checks and its statement pre-flight. The `sql` connector builds it from its config, the demo ERP
 * from its bundled SQLite database and fixed statements.
 */
import type { CapabilityMap, CapabilityName } from '../../src/connector-contract/capabilities.js';
import type { CheckResult, Connector, PreflightProblem } from '../../src/connector-contract/connector.js';
import { SqlAccountingWriter } from './accounting-writer.js';
import type { SqlDriver } from '../../src/kit/sql/driver.js';
import { SqlCatalogSource, SqlCustomerDirectory } from './erp-catalog.js';
import type { ErpStatements } from './erp-config.js';
import { SqlDocumentSource } from './erp-documents.js';
import { SqlExpenseSource } from './erp-expenses.js';
import { SqlOrderSink } from './erp-orders.js';
import { SqlConfirmationSource, SqlDocumentReactionSink } from './erp-reactions.js';
import { SqlSalesSource } from './erp-sales.js';
import type { JournalTableConfig } from './journal-config.js';
import { SqlMirrorSink } from './mirror-sink.js';
import { preflightStatements } from './preflight.js';

export interface SqlCapabilityConfig {
  journal?: JournalTableConfig | undefined;
  statements?: ErpStatements | undefined;
  mirror?: { table_prefix: string } | undefined;
}

/** The statement sections of the config, each enabling one capability. */
const STATEMENT_CAPABILITIES = {
  orders: 'orderSink',
  documents: 'documentSource',
  expenses: 'expenseSource',
  reactions: 'documentReactionSink',
  confirmations: 'confirmationSource',
  catalog: 'catalogSource',
  customers: 'customerDirectory',
  sales: 'salesSource',
} as const satisfies Record<keyof ErpStatements, CapabilityName>;

/** The names of the capabilities sqlCapabilities builds for a config, known without opening the database. */
export function sqlCapabilityNames(config: SqlCapabilityConfig): CapabilityName[] {
  const statements = config.statements ?? {};
  return [
    ...(config.journal === undefined ? [] : (['accountingWriter'] as const)),
    ...Object.entries(STATEMENT_CAPABILITIES)
      .filter(([section]) => statements[section as keyof ErpStatements] !== undefined)
      .map(([, capability]) => capability),
    ...(config.mirror === undefined ? [] : (['mirrorSink'] as const)),
  ];
}

/** Builds the capabilities a config enables on one open driver. */
export function sqlCapabilities(
  driver: SqlDriver,
  config: SqlCapabilityConfig,
  name: string,
  configFile?: string,
): Partial<CapabilityMap> {
  const capabilities: Partial<CapabilityMap> = {};
  const statements = config.statements ?? {};
  if (config.journal !== undefined) {
    const journal = new SqlAccountingWriter(driver, config.journal, name, undefined, configFile);
    capabilities.accountingWriter = journal;
  }
  if (statements.orders !== undefined)
    capabilities.orderSink = new SqlOrderSink(driver, statements.orders, name);
  if (statements.documents !== undefined) {
    capabilities.documentSource = new SqlDocumentSource(driver, statements.documents, name);
  }
  if (statements.expenses !== undefined)
    capabilities.expenseSource = new SqlExpenseSource(driver, statements.expenses, name);
  if (statements.reactions !== undefined) {
    capabilities.documentReactionSink = new SqlDocumentReactionSink(driver, statements.reactions);
  }
  if (statements.confirmations !== undefined) {
    capabilities.confirmationSource = new SqlConfirmationSource(driver, statements.confirmations, name);
  }
  if (statements.catalog !== undefined)
    capabilities.catalogSource = new SqlCatalogSource(driver, statements.catalog, name);
  if (statements.customers !== undefined) {
    capabilities.customerDirectory = new SqlCustomerDirectory(driver, statements.customers, name);
  }
  if (statements.sales !== undefined)
    capabilities.salesSource = new SqlSalesSource(driver, statements.sales, name);
  if (config.mirror !== undefined)
    capabilities.mirrorSink = new SqlMirrorSink(driver, config.mirror.table_prefix);
  return capabilities;
}

/** A connector over one SQL database; `where` describes it without credentials. */
export class SqlConnector implements Connector {
  readonly type: string;

  constructor(
    type: string,
    readonly driver: SqlDriver,
    readonly capabilities: Partial<CapabilityMap>,
    private readonly where: string,
    private readonly journal: JournalTableConfig | undefined,
    private readonly statements?: ErpStatements,
  ) {
    this.type = type;
  }

  preflight(): Promise<PreflightProblem[]> {
    return preflightStatements(this.driver, this.statements);
  }

  async check(): Promise<CheckResult[]> {
    const results: CheckResult[] = [];
    try {
      await this.driver.query('SELECT 1 AS ok');
      results.push({ name: 'database reachable', status: 'ok', detail: this.where });
    } catch (error) {
      results.push({
        name: 'database reachable',
        status: 'fail',
        detail: `${this.where}: ${errorSummary(error)}`,
        fix: 'check the connection settings, that the server is running and that this host may connect to it',
      });
      return results;
    }
    if (this.journal !== undefined) results.push(await this.#checkJournalTable(this.journal));
    return results;
  }

  close(): Promise<void> {
    return this.driver.close();
  }

  /** What a run would meet in the journal's tables; with create_tables, the first run creates the missing ones. */
  async #checkJournalTable(journal: JournalTableConfig): Promise<CheckResult> {
    const writer = this.capabilities.accountingWriter;
    if (!(writer instanceof SqlAccountingWriter)) {
      return { name: 'journal table', status: 'ok', detail: `${journal.table}: not checked` };
    }
    try {
      const problem = await writer.targetProblem();
      if (problem !== null) return { name: 'journal table', status: 'fail', ...problem };
      if (journal.create_tables) {
        return { name: 'journal table', status: 'ok', detail: `${journal.table} (created when missing)` };
      }
      await writer.ensureTables();
      return { name: 'journal table', status: 'ok', detail: journal.table };
    } catch (error) {
      return {
        name: 'journal table',
        status: 'fail',
        detail: `${journal.table}: ${errorSummary(error)}`,
        fix: 'create the table or set journal.create_tables: true, and grant this user INSERT and SELECT on it',
      };
    }
  }
}

function errorSummary(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
