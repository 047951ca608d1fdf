import type { CapabilityMap, CapabilityName } from '../../src/connector-contract/capabilities.js';
import type { CommitGate } from '../../src/connector-contract/commit-gate.js';
import type { CheckResult, Connector, PreflightProblem } from '../../src/connector-contract/connector.js';
import type { OdataEntities } from './config.js';
import { currencyProblems } from './currency-check.js';
import { describeMissing, missingNames } from './doctor.js';
import type { OdataHttp } from './http.js';
import { selectedProperties } from './mapping.js';
import { parseMetadata } from './metadata.js';
import { OdataOrderSink } from './orders.js';
import type { Origins } from './presets.js';
import { OdataCatalogSource, OdataCustomerDirectory, OdataDocumentSource } from './reads.js';
import { OdataService } from './service.js';

/** Connector-level settings the capabilities apply (company_timezone, documents_from, currencies). */
export interface WriteOptions {
  readonly timeZone?: string | undefined;
  readonly documentsFrom?: string | undefined;
  readonly currencies?: Readonly<Record<string, string>> | undefined;
}

/** The capabilities the resolved entity mapping enables: one per section present. */
export function odataCapabilityNames(entities: OdataEntities): CapabilityName[] {
  return [
    ...(entities.orders === undefined ? [] : (['orderSink'] as const)),
    ...(entities.documents === undefined ? [] : (['documentSource'] as const)),
    ...(entities.catalog === undefined ? [] : (['catalogSource'] as const)),
    ...(entities.customers === undefined ? [] : (['customerDirectory'] as const)),
  ];
}

function odataCapabilities(
  service: OdataService,
  entities: OdataEntities,
  name: string,
  options: WriteOptions,
): Partial<CapabilityMap> {
  const capabilities: Partial<CapabilityMap> = {};
  if (entities.orders !== undefined)
    capabilities.orderSink = new OdataOrderSink(
      service,
      entities.orders,
      name,
      options.timeZone,
      options.currencies,
      entities.company_currencies,
    );
  if (entities.documents !== undefined) {
    const sources = entities.documents.sources;
    capabilities.documentSource = new OdataDocumentSource(
      service,
      sources,
      name,
      options.documentsFrom,
      options.currencies,
      options.timeZone,
    );
  }
  if (entities.catalog !== undefined)
    capabilities.catalogSource = new OdataCatalogSource(service, entities.catalog, name);
  if (entities.customers !== undefined) {
    capabilities.customerDirectory = new OdataCustomerDirectory(service, entities.customers, name);
  }
  return capabilities;
}

/**
 * A connector over one OData service. Health, doctor and the pre-flight sign in the way the capabilities do (one
 * session for all); the pre-flight reads $metadata and checks every configured entity set, property and
 * user-defined field.
 */
export class OdataConnector implements Connector {
  readonly type = 'odata';
  readonly capabilities: Partial<CapabilityMap>;
  readonly #service: OdataService;

  constructor(
    private readonly http: OdataHttp,
    private readonly entities: OdataEntities,
    private readonly origins: Origins,
    private readonly configKey: string,
    name: string,
    mayCommit?: CommitGate,
    private readonly options: WriteOptions = {},
  ) {
    this.#service = new OdataService(http, name, mayCommit, entities.paging);
    this.capabilities = odataCapabilities(this.#service, entities, name, options);
  }

  /**
   * Health and doctor's first line: signed in with the configured credentials (the session the capabilities use)
   * and one small read. $metadata, which can be megabytes, is read by the pre-flight only.
   */
  async check(): Promise<CheckResult[]> {
    try {
      await this.http.signIn();
      const probe = this.#probe();
      if (probe !== undefined)
        await this.#service.list(probe.set, { select: [probe.property], top: 1 }, 'health');
      return [{ name: 'ERP service signed in', status: 'ok', detail: this.http.where }];
    } catch (error) {
      return [
        {
          name: 'ERP service signed in',
          status: 'fail',
          detail: `${this.http.where}: ${error instanceof Error ? error.message : String(error)}`,
          fix: `check ${this.configKey}.service_url and ${this.configKey}.auth`,
        },
      ];
    }
  }

  /** doctor and daemon start: every configured entity set, property, user-defined field and action in $metadata. */
  async preflight(): Promise<PreflightProblem[]> {
    await this.http.signIn();
    const response = await this.http.send('GET', '$metadata', { what: '$metadata' });
    const model = parseMetadata(response.text);
    const missing = missingNames(model, this.entities);
    const problems = missing.map((entry) => describeMissing(entry, this.origins, this.configKey));
    if (missing.some((entry) => entry.setting.startsWith('company_currencies.'))) return problems;
    const currencies = this.options.currencies ?? {};
    return [
      ...problems,
      ...(await currencyProblems(this.#service, this.entities, currencies, this.configKey)),
    ];
  }

  close(): Promise<void> {
    return this.http.close();
  }

  /** The entity set and a property the health read asks for: the orders' key, else the first read section. */
  #probe(): { set: string; property: string } | undefined {
    const { orders, customers, catalog } = this.entities;
    if (orders !== undefined) return { set: orders.entity_set, property: orders.key[0] ?? orders.erp_number };
    const section = customers ?? catalog?.products;
    const first = section === undefined ? undefined : selectedProperties(section.fields)[0];
    return section === undefined || first === undefined
      ? undefined
      : { set: section.entity_set, property: first };
  }
}
