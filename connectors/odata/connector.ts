import type { CapabilityMap, CapabilityName } from '../../src/connector-contract/capabilities.js';
import type { CheckResult, Connector, PreflightProblem } from '../../src/connector-contract/connector.js';
import type { OdataEntities } from './config.js';
import { describeMissing, missingNames } from './doctor.js';
import type { OdataHttp } from './http.js';
import { parseMetadata, type ServiceModel } from './metadata.js';
import { OdataOrderSink } from './orders.js';
import type { Origins } from './presets.js';
import { OdataCatalogSource, OdataCustomerDirectory, OdataDocumentSource } from './reads.js';
import { OdataService } from './service.js';

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
): Partial<CapabilityMap> {
  const capabilities: Partial<CapabilityMap> = {};
  if (entities.orders !== undefined)
    capabilities.orderSink = new OdataOrderSink(service, entities.orders, name);
  if (entities.documents !== undefined) {
    capabilities.documentSource = new OdataDocumentSource(service, entities.documents.sources, name);
  }
  if (entities.catalog !== undefined)
    capabilities.catalogSource = new OdataCatalogSource(service, entities.catalog, name);
  if (entities.customers !== undefined) {
    capabilities.customerDirectory = new OdataCustomerDirectory(service, entities.customers, name);
  }
  return capabilities;
}

/**
 * A connector over one OData service. doctor, the pre-flight and health sign in the way the capabilities do (one
 * session for all), read $metadata and check every configured entity set, property and user-defined field.
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
  ) {
    this.#service = new OdataService(http, name);
    this.capabilities = odataCapabilities(this.#service, entities, name);
  }

  async check(): Promise<CheckResult[]> {
    let model: ServiceModel;
    try {
      model = await this.#metadata();
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
    const signedIn: CheckResult = { name: 'ERP service signed in', status: 'ok', detail: this.http.where };
    const problems = this.#problems(model);
    const first = problems[0];
    if (first === undefined) {
      return [
        signedIn,
        { name: 'ERP names in $metadata', status: 'ok', detail: 'every configured name exists' },
      ];
    }
    const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : '';
    const detail = `${this.configKey}.${first.key}: ${first.detail}${more}`;
    return [
      signedIn,
      {
        name: 'ERP names in $metadata',
        status: 'fail',
        detail,
        ...(first.fix === undefined ? {} : { fix: first.fix }),
      },
    ];
  }

  async preflight(): Promise<PreflightProblem[]> {
    return this.#problems(await this.#metadata());
  }

  close(): Promise<void> {
    return this.http.close();
  }

  #problems(model: ServiceModel): PreflightProblem[] {
    return missingNames(model, this.entities).map((missing) =>
      describeMissing(missing, this.origins, this.configKey),
    );
  }

  async #metadata(): Promise<ServiceModel> {
    await this.http.signIn();
    const response = await this.http.send('GET', '$metadata', { what: '$metadata' });
    return parseMetadata(response.text);
  }
}
