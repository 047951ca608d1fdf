import type { PreflightProblem } from '../../src/connector-contract/connector.js';
import type { OdataEntities } from './config.js';
import { currencyCapability } from './doctor.js';
import type { OdataService } from './service.js';

/**
 * The connector's currencies table (API code -> company code) against the currencies the company defines: a company
 * code it does not define would make the ERP refuse every order in that currency, so doctor fails on it.
 */
export async function currencyProblems(
  service: OdataService,
  entities: OdataEntities,
  currencies: Readonly<Record<string, string>>,
  configKey: string,
): Promise<PreflightProblem[]> {
  const section = entities.company_currencies;
  if (section === undefined || Object.keys(currencies).length === 0) return [];
  const rows = await service.list(section.entity_set, { select: [section.code] }, 'company_currencies');
  const defined = [...new Set(rows.map((row) => String(row[section.code])))].sort();
  return Object.entries(currencies)
    .filter(([, code]) => !defined.includes(code))
    .map(([api, code]) => ({
      status: 'fail',
      capability: currencyCapability(entities),
      key: `currencies.${api}`,
      detail:
        `the company code ${code} mapped from ${api} is not a currency the company defines ` +
        `(${section.entity_set}: ${defined.join(', ') || 'none'})`,
      fix:
        `set ${configKey}.currencies.${api} to the code the company defines for ${api} (one of ${defined.join(', ')}), ` +
        `or define ${code} in the company (Administration, Setup, Financials, Currencies)`,
    }));
}
