import type { CapabilityName } from '../../src/connector-contract/capabilities.js';
import { catalogContracts, customerContracts } from './erp-catalog.js';
import type { ErpStatements } from './erp-config.js';
import { documentContracts } from './erp-documents.js';
import { expenseContracts } from './erp-expenses.js';
import { orderContracts } from './erp-orders.js';
import { confirmationContracts, reactionContracts } from './erp-reactions.js';
import { salesContracts } from './erp-sales.js';
import type { StatementContract } from './statement-contract.js';

type Section = keyof ErpStatements;

/** Every statement's contract, by config section and name: the same objects the runtime code is typed by. */
const contracts: {
  readonly [S in Section]-?: Record<keyof NonNullable<ErpStatements[S]>, StatementContract>;
} = {
  catalog: catalogContracts,
  orders: orderContracts,
  documents: documentContracts,
  expenses: expenseContracts,
  reactions: reactionContracts,
  confirmations: confirmationContracts,
  customers: customerContracts,
  sales: salesContracts,
};

/** The capability a section of statements provides (a job's flow uses some of them). */
const capabilities: Readonly<Record<Section, CapabilityName>> = {
  catalog: 'catalogSource',
  orders: 'orderSink',
  documents: 'documentSource',
  expenses: 'expenseSource',
  reactions: 'documentReactionSink',
  confirmations: 'confirmationSource',
  customers: 'customerDirectory',
  sales: 'salesSource',
};

export interface ConfiguredStatement {
  readonly sql: string;
  readonly contract: StatementContract;
  readonly capability: CapabilityName;
}

/** The statements a config sets, each with its contract, in config order. */
export function configuredStatements(statements: ErpStatements | undefined): ConfiguredStatement[] {
  const configured: ConfiguredStatement[] = [];
  for (const [section, block] of Object.entries(statements ?? {}) as [Section, object | undefined][]) {
    if (block === undefined) continue;
    const sectionContracts = contracts[section] as Readonly<Record<string, StatementContract>>;
    for (const [name, sql] of Object.entries(block) as [string, string | undefined][]) {
      const contract = sectionContracts[name];
      if (sql === undefined || contract === undefined) continue;
      configured.push({ sql, contract, capability: capabilities[section] });
    }
  }
  return configured;
}
