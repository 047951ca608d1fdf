import { describe, expect, it } from 'vitest';
import { odataConfigSchema } from '../../../connectors/odata/index.js';
import { PRIORITY_MODEL, SAP_B1_MODEL, withoutProperties } from '../../support/odata-emulator/index.js';
import { SAP_B1_SERVICE_LAYER } from '../../../connectors/odata/presets/sap-b1-service-layer.js';
import { blockFor, openOdata, PRIORITY_PASSWORD, PRIORITY_TOKEN, SAP_PASSWORD } from './fixture.js';

/** The line of the preset file a setting is on (each YAML line is on the same line of its .ts file). */
function presetLine(text: string, setting: string): number {
  return text.split('\n').findIndex((line) => line.trimStart().startsWith(`${setting}:`)) + 1;
}

describe('odata doctor: sign in, read $metadata, check every configured name', () => {
  for (const erp of ['sap-b1-service-layer', 'priority-rest'] as const) {
    it(`passes the ${erp} preset against its emulator, with one sign-in`, async () => {
      const fixture = await openOdata(erp);
      try {
        const results = await fixture.connector.check();
        expect(results.map((result) => [result.name, result.status])).toEqual([
          ['ERP service signed in', 'ok'],
        ]);
        expect(await fixture.connector.preflight?.()).toEqual([]);
        expect(fixture.emulator.stats.logins).toBe(erp === 'sap-b1-service-layer' ? 1 : 0);
        expect(fixture.oracle.seen.some((request) => request.target === '$metadata')).toBe(true);
        expect(fixture.oracle.failures).toEqual([]);
      } finally {
        await fixture.close();
      }
    });
  }

  it('names a user-defined field the ERP lacks, the setting that needs it and the preset line it came from', async () => {
    const fixture = await openOdata('sap-b1-service-layer', {
      emulator: { model: withoutProperties(SAP_B1_MODEL, ['U_ApiOrderId']) },
    });
    try {
      const [signedIn] = await fixture.connector.check();
      expect(signedIn?.status).toBe('ok');
      const line = presetLine(SAP_B1_SERVICE_LAYER, 'find_filter');
      expect(line).toBeGreaterThan(1);
      const problems = (await fixture.connector.preflight?.()) ?? [];
      const [first] = problems;
      expect(first).toMatchObject({
        status: 'fail',
        capability: 'orderSink',
        key: 'entities.orders.find_filter',
      });
      expect(first?.detail).toBe(
        "user-defined field U_ApiOrderId is not on Orders in the service's $metadata (set by preset " +
          `sap-b1-service-layer (connectors/odata/presets/sap-b1-service-layer.ts line ${line}))`,
      );
      expect(first?.fix).toContain('add the field U_ApiOrderId in the ERP');
      expect(new Set(problems.map((problem) => problem.capability))).toEqual(
        new Set(['orderSink', 'documentSource']),
      );
    } finally {
      await fixture.close();
    }
  });

  it('fails on a company currency code the company does not define (Currencies), naming the key and the code', async () => {
    const fixture = await openOdata('sap-b1-service-layer', {
      block: { currencies: { ILS: 'NIS', USD: 'USD' } },
    });
    try {
      const problems = (await fixture.connector.preflight?.()) ?? [];
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatchObject({ status: 'fail', capability: 'orderSink', key: 'currencies.ILS' });
      expect(problems[0]?.detail).toBe(
        'the company code NIS mapped from ILS is not a currency the company defines (Currencies: EUR, ILS, USD)',
      );
      expect(problems[0]?.fix).toContain('set connectors.erp.currencies.ILS to the code the company defines');
      expect(fixture.oracle.seen.some((request) => request.target.startsWith('Currencies?'))).toBe(true);
    } finally {
      await fixture.close();
    }
    const defined = await openOdata('sap-b1-service-layer', { block: { currencies: { USD: 'USD' } } });
    try {
      expect(await defined.connector.preflight?.()).toEqual([]);
    } finally {
      await defined.close();
    }
  });

  it('asks for ClearEntityMetadata on the form when a Priority column is not in $metadata yet', async () => {
    const fixture = await openOdata('priority-rest', {
      emulator: { model: withoutProperties(PRIORITY_MODEL, ['ZSSY_APIORDERID']) },
    });
    try {
      const problems = (await fixture.connector.preflight?.()) ?? [];
      const order = problems.find((problem) => problem.detail.includes('ZSSY_APIORDERID is not on ORDERS'));
      expect(order?.fix).toContain(
        'POST ClearEntityMetadata with {"Entity": "ORDERS"} to the service root so the API shows it, then run doctor again',
      );
    } finally {
      await fixture.close();
    }
  });

  it('names a misspelt property set in the config, with the name the ERP has', async () => {
    const fixture = await openOdata('priority-rest', {
      block: { entities: { customers: { fields: { email: 'EMAL' } } } },
    });
    try {
      const [problem, ...others] = (await fixture.connector.preflight?.()) ?? [];
      expect(others).toEqual([]);
      expect(problem).toMatchObject({
        capability: 'customerDirectory',
        key: 'entities.customers.fields.email',
      });
      expect(problem?.detail).toBe(
        "property EMAL is not on CUSTOMERS in the service's $metadata; did you mean EMAIL? " +
          '(set by connectors.erp.entities.customers.fields.email)',
      );
    } finally {
      await fixture.close();
    }
  });

  it('names an entity set the ERP does not have', async () => {
    const fixture = await openOdata('priority-rest', {
      emulator: {
        model: {
          ...PRIORITY_MODEL,
          entitySets: PRIORITY_MODEL.entitySets.filter((set) => set.name !== 'LOGPART'),
        },
      },
    });
    try {
      const [problem] = (await fixture.connector.preflight?.()) ?? [];
      expect(problem?.key).toBe('entities.catalog.products.entity_set');
      expect(problem?.detail).toMatch(/^entity set LOGPART is not on the service/);
    } finally {
      await fixture.close();
    }
  });
});

describe('odata sign-in errors name the config key and never the password', () => {
  const cases = [
    {
      title: 'a wrong SAP password',
      erp: 'sap-b1-service-layer',
      auth: {
        kind: 'sap-b1-session',
        company_db: 'SBODEMOUS',
        username: 'manager',
        password: 'Wr0ng-Secret-1',
      },
      secret: 'Wr0ng-Secret-1',
      names: 'auth.password',
    },
    {
      title: 'a company database that does not exist',
      erp: 'sap-b1-service-layer',
      auth: { kind: 'sap-b1-session', company_db: 'SBO_NOPE', username: 'manager', password: SAP_PASSWORD },
      secret: SAP_PASSWORD,
      names: 'auth.company_db ("SBO_NOPE")',
    },
    {
      title: 'a wrong Priority password',
      erp: 'priority-rest',
      auth: { kind: 'basic', username: 'apiuser', password: 'Wr0ng-Secret-2' },
      secret: 'Wr0ng-Secret-2',
      names: 'auth.username and auth.password',
    },
    {
      title: 'a revoked Priority token',
      erp: 'priority-rest',
      auth: { kind: 'personal-access-token', token: 'pat-revoked-0000' },
      secret: 'pat-revoked-0000',
      names: 'auth.token',
    },
  ] as const;

  for (const example of cases) {
    it(`${example.title}: doctor fails naming ${example.names}, and a capability fails the same way`, async () => {
      const fixture = await openOdata(example.erp, {
        block: { auth: example.auth },
        emulator: { echoCredentials: true },
      });
      try {
        const results = await fixture.connector.check();
        expect(results).toHaveLength(1);
        expect(results[0]).toMatchObject({ name: 'ERP service signed in', status: 'fail' });
        expect(results[0]?.detail).toContain(example.names);
        const failure = await fixture.connector.capabilities.orderSink
          ?.findOrder('ord_1')
          .catch((error: unknown) => error);
        expect(failure).toMatchObject({ code: 'connector_config_invalid', retryable: false });
        const everything =
          JSON.stringify(results) + String((failure as Error).message) + JSON.stringify(failure);
        expect(everything).not.toContain(example.secret);
        // The emulator did repeat the credentials in its answers: the redaction is what kept them out.
        if (example.erp === 'sap-b1-service-layer') expect(everything).toContain('[redacted]');
      } finally {
        await fixture.close();
      }
    });
  }

  it('accepts the right Priority credentials both ways', async () => {
    for (const auth of [
      { kind: 'basic', username: 'apiuser', password: PRIORITY_PASSWORD },
      { kind: 'personal-access-token', token: PRIORITY_TOKEN },
    ]) {
      const fixture = await openOdata('priority-rest', { block: { auth } });
      try {
        expect((await fixture.connector.check()).every((result) => result.status === 'ok')).toBe(true);
      } finally {
        await fixture.close();
      }
    }
  });
});

describe('odata config errors name the key and where the value came from', () => {
  it('refuses a bad override naming its key', () => {
    const result = odataConfigSchema.safeParse(
      blockFor('sap-b1-service-layer', 'http://127.0.0.1:1/b1s/v2/', {
        entities: { orders: { write: 'sideways' } },
      }),
    );
    expect(result.success).toBe(false);
    const issue = result.error?.issues[0];
    expect(issue?.path.join('.')).toBe('entities.orders.write');
    expect(issue?.message).not.toContain('(from');
    const fromPreset = odataConfigSchema.safeParse(
      blockFor('sap-b1-service-layer', 'http://127.0.0.1:1/b1s/v2/', {
        entities: { orders: { header: 'oops' } },
      }),
    );
    expect(fromPreset.error?.issues[0]?.path.join('.')).toBe('entities.orders.header');
  });

  it('drops a preset section set to null, and the capability with it', () => {
    const config = odataConfigSchema.parse(
      blockFor('priority-rest', 'http://127.0.0.1:1/x/', { entities: { documents: null, catalog: null } }),
    );
    expect(config.entities).toEqual({ documents: null, catalog: null });
  });
});
