import type { PreflightProblem } from '../../src/connector-contract/connector.js';
import type { OdataEntities } from './config.js';
import { currencyCapability } from './doctor.js';
import type { OdataService } from './service.js';

type CompanyCurrencies = NonNullable<OdataEntities['company_currencies']>;

/** The currency codes the company defines, sorted. */
export async function companyCurrencyCodes(
  service: OdataService,
  section: CompanyCurrencies,
): Promise<string[]> {
  const rows = await service.list(section.entity_set, { select: [section.code] }, 'company_currencies');
  return [...new Set(rows.map((row) => String(row[section.code])))].sort();
}

/**
 * Why the ERP refused an order, when its currency is one the company does not define: the company's code the order
 * was written with, the codes the company has, and the key to set. Undefined when the currency is defined (the
 * refusal had another cause) or the company's currencies cannot be read.
 */
export async function undefinedCurrencyFix(
  service: OdataService,
  section: CompanyCurrencies,
  apiCode: string,
  companyCode: string,
  configKey: string,
): Promise<string | undefined> {
  const defined = await companyCurrencyCodes(service, section).catch(() => undefined);
  if (defined === undefined || defined.includes(companyCode)) return undefined;
  return (
    `the company defines no currency ${companyCode} (${section.entity_set}: ${defined.join(', ') || 'none'}): ` +
    `set ${configKey}.currencies.${apiCode} to the code the company defines for ${apiCode}, or define ` +
    `${companyCode} in the company (Administration, Setup, Financials, Currencies); doctor checks the table`
  );
}

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
  const defined = await companyCurrencyCodes(service, section);
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
