import * as z from 'zod';
import { duration, secret } from '../../src/config/index.js';

/**
 * The `odata` connector's block. `entities` says, per capability, which entity set to read or write, with which
 * `$filter`, `$select` and property mapping; a `preset` fills it from a vendor's published API and the block
 * overrides any part of it (resolved in presets.ts, validated against `entitiesSchema`).
 */

const name = (description: string, example: string) =>
  z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { error: 'expected an OData identifier (letters, digits, _)' })
    .meta({ description, examples: [example] });

/** A value written into the ERP: `:param` (a value supply-sync provides), or a constant. */
const writeValue = z.union([
  z.string(),
  z.number(),
  z.boolean(),
  z.strictObject({
    value: z.string().meta({ description: 'a `:param` or a constant' }),
    as: z.enum(['auto', 'text', 'number', 'date', 'datetime', 'boolean']).default('auto').meta({
      description: 'the JSON form the ERP expects: datetime writes 2026-11-24T00:00:00Z',
    }),
    max_length: z.number().int().min(2).optional().meta({
      description:
        "The field's published length: a longer text is shortened to it, its last character replaced by …",
    }),
  }),
]);
export type WriteValue = z.output<typeof writeValue>;

/** Where a neutral field is read from: a property path, or a property turned into a yes/no. */
const readField = z.union([
  z.string(),
  z.strictObject({
    path: z.string(),
    true_values: z.array(z.string()).optional(),
    above_zero: z.boolean().optional(),
  }),
]);
export type ReadField = z.output<typeof readField>;

const filter = z
  .string()
  .trim()
  .min(1)
  .meta({
    description: 'An OData $filter; `:param` placeholders are bound as quoted OData literals',
    examples: ['U_ApiOrderId eq :api_order_id'],
  });

const readSection = z.strictObject({
  entity_set: name('The entity set read', 'Items'),
  filter: filter.optional(),
  select: z.array(z.string()).optional().meta({ description: '$select; by default the properties mapped' }),
  flatten: z.string().optional().meta({
    description: 'A collection property each entity is read as several rows of (paths inside it: Prop/Child)',
  }),
  fields: z.record(z.string(), readField).meta({ description: 'supply-sync field -> property path' }),
  order_by: z.array(z.string()).min(1).optional().meta({
    description:
      'The key properties the entity set is ordered by when paged with $top/$skip (entities.paging)',
  }),
});
export type ReadSection = z.output<typeof readSection>;

const documentSource = z.strictObject({
  type: z.string().meta({ description: 'delivery_note | invoice | credit_note | consolidated_invoice' }),
  entity_set: name('The entity set of these documents', 'Invoices'),
  key: z.array(z.string()).min(1).meta({ description: 'The key properties, as in $metadata' }),
  filter: filter.meta({ description: 'Selects the documents not sent yet' }),
  lines_property: z.string().meta({ description: 'The collection or navigation property of the lines' }),
  expand_lines: z
    .boolean()
    .default(false)
    .meta({ description: 'true when the lines are a navigation property ($expand)' }),
  fields: z.record(z.string(), readField),
  line_fields: z.record(z.string(), readField),
  mark_sent: z.record(z.string(), writeValue).meta({
    description:
      'Properties PATCHed on a document once sent; :api_document_id, :ref and :sent_mark ' +
      '(`<api document id>@<ref>`, naming the document itself) are provided',
  }),
  date_floor_as: z
    .enum(['date', 'datetime'])
    .default('date')
    .meta({
      description:
        "How documents_from is compared with the source's date field: date (`DocDate ge 2026-01-01`, an Edm.Date) " +
        'or datetime (`IVDATE ge 2026-01-01T00:00:00+02:00`, midnight in company_timezone with its offset, for an ' +
        'Edm.DateTimeOffset such as Priority dates)',
    }),
  updated: z
    .strictObject({
      date: z
        .string()
        .meta({ description: 'The date of the last change (Edm.Date)', examples: ['UpdateDate'] }),
      time: z.string().meta({
        description: 'The time of day of the last change (Edm.TimeOfDay)',
        examples: ['UpdateTime'],
      }),
    })
    .optional()
    .meta({
      description:
        "The document's last change, in the company's time zone (company_timezone): reads after the first ask only " +
        'for documents changed since the last read whose documents were all marked sent (10 minutes overlap)',
    }),
  own_mark: z
    .string()
    .optional()
    .meta({
      description:
        'The property mark_sent writes :sent_mark into. A document whose mark names another document (copied from ' +
        'the document it was created from) is read as not sent; a mark without "@" (written before) counts as sent',
    }),
});
export type DocumentSourceConfig = z.output<typeof documentSource>;

const pagingSchema = z
  .strictObject({
    mode: z
      .enum(['next_link', 'top_skip'])
      .default('next_link')
      .meta({
        description:
          "next_link: follow the service's paging links; top_skip: ask for pages with $top/$skip ordered by the key " +
          '(services that cap results and send no link, as Priority)',
      }),
    page_size: z
      .number()
      .int()
      .min(1)
      .max(10_000)
      .default(500)
      .meta({ description: 'Entities per $top/$skip page' }),
    max_result_lines: z.number().int().min(1).optional().meta({
      description:
        "The service's cap on one answer: with next_link, a page this long without a link is an error, not a complete read",
    }),
  })
  .default({ mode: 'next_link', page_size: 500 });
export type OdataPaging = z.output<typeof pagingSchema>;

export const entitiesSchema = z
  .strictObject({
    paging: pagingSchema,
    batch_rollback: z
      .boolean()
      .default(true)
      .meta({
        description:
          'Whether the service undoes a whole $batch change set when one request in it fails. false (Priority) ' +
          'rules out orders.write: batch, since a failed line would leave half an order behind',
      }),
    orders: z
      .strictObject({
        entity_set: name('The sales order entity set', 'Orders'),
        key: z.array(z.string()).min(1),
        erp_number: z.string().meta({ description: 'The property holding the order number users see' }),
        status: z.string().optional(),
        find_filter: filter,
        lines_property: z.string(),
        expand_lines: z.boolean().default(false).meta({
          description: 'true when the lines are a navigation property ($expand), as Priority subforms',
        }),
        header: z.record(z.string(), writeValue),
        line: z.record(z.string(), writeValue),
        write: z.enum(['deep_insert', 'batch']).default('deep_insert').meta({
          description:
            'deep_insert: one POST with the lines inside; batch: a $batch change set (header, then lines)',
        }),
        cancelled: z
          .strictObject({ property: z.string(), value: z.union([z.string(), z.boolean()]) })
          .optional()
          .meta({ description: 'How a cancelled order shows, so a repeated cancel writes nothing' }),
        cancel: z
          .union([
            z.strictObject({ action: z.string() }),
            z.strictObject({ patch: z.record(z.string(), writeValue) }),
          ])
          .optional(),
      })
      .optional(),
    documents: z.strictObject({ sources: z.array(documentSource).min(1) }).optional(),
    catalog: z
      .strictObject({
        products: readSection,
        prices: readSection.optional(),
        availability: readSection.optional(),
      })
      .optional(),
    customers: readSection.optional(),
    company_currencies: z
      .strictObject({
        entity_set: name('The entity set of the currencies the company defines', 'Currencies'),
        code: z.string().meta({ description: "The property holding a currency's code", examples: ['Code'] }),
      })
      .optional()
      .meta({
        description:
          "doctor checks every company code in the connector's currencies table against this entity set",
      }),
  })
  .superRefine((entities, context) => {
    if (entities.orders?.write !== 'batch' || entities.batch_rollback) return;
    context.addIssue({
      code: 'custom',
      path: ['orders', 'write'],
      message:
        'batch needs a service that rolls a failed change set back, and this one does not (batch_rollback: false): ' +
        'a line refused after the order was created would leave half an order. Use deep_insert',
    });
  });
export type OdataEntities = z.output<typeof entitiesSchema>;

const meta = (description: string, example: unknown) => ({ description, examples: [example] });

const authSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z
      .literal('sap-b1-session')
      .meta(meta('SAP Business One Service Layer: Login, B1SESSION cookie', 'sap-b1-session')),
    company_db: z.string().min(1).meta(meta('CompanyDB sent to Login: the company database', 'SBODEMOUS')),
    username: z.string().min(1).meta(meta('UserName sent to Login: an SAP Business One user', 'manager')),
    password: secret('the Service Layer password').meta(meta("That user's password", '${SAP_B1_PASSWORD}')),
  }),
  z.strictObject({
    kind: z
      .literal('basic')
      .meta(meta('HTTP Basic with a user and password (Priority: the API user)', 'basic')),
    username: z.string().min(1).meta(meta('The API user name', 'apiuser')),
    password: secret('the API password').meta(meta("That user's password", '${PRIORITY_PASSWORD}')),
  }),
  z.strictObject({
    kind: z
      .literal('personal-access-token')
      .meta(
        meta('Priority personal access token, sent as Basic with the password PAT', 'personal-access-token'),
      ),
    token: secret('the personal access token').meta(meta('The token', '${PRIORITY_TOKEN}')),
  }),
]);
export type OdataAuth = z.output<typeof authSchema>;

function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

export const PRESET_NAMES = ['sap-b1-service-layer', 'priority-rest'] as const;
export type PresetName = (typeof PRESET_NAMES)[number];

export const odataConnectorConfigSchema = z.strictObject({
  preset: z
    .enum(PRESET_NAMES)
    .optional()
    .meta({
      description: 'Fills `entities` from the vendor API reference (connectors/odata/README.md)',
      examples: ['sap-b1-service-layer'],
    }),
  service_url: z
    .string()
    .refine((text) => URL.canParse(text) && /^https?:/.test(text), { error: 'expected an http(s) URL' })
    .meta({
      description: 'The service root',
      examples: [
        'https://b1server:50000/b1s/v2/',
        'https://priority.example.com/odata/Priority/tabula.ini/demo/',
      ],
    }),
  auth: authSchema.meta({
    description: 'How supply-sync signs in',
    examples: [
      {
        kind: 'sap-b1-session',
        company_db: 'SBODEMOUS',
        username: 'manager',
        password: '${SAP_B1_PASSWORD}',
      },
    ],
  }),
  app_license: z
    .strictObject({
      app_id: z
        .string()
        .min(1)
        .meta(meta('X-App-Id: the application id Priority Software assigned', 'APP001')),
      app_key: secret('the application license key').meta(meta('X-App-Key', '${PRIORITY_APP_KEY}')),
    })
    .optional()
    .meta({
      description:
        'Priority per-application license (version 18.3 on): sent as X-App-Id and X-App-Key on every request; ' +
        'without it requests count against the generic API license',
      examples: [{ app_id: 'APP001', app_key: '${PRIORITY_APP_KEY}' }],
    }),
  documents_from: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, { error: 'expected a date, YYYY-MM-DD' })
    .optional()
    .meta({
      description:
        'Documents dated before this are never read or sent: each document source reads only `<its date field> ge ' +
        "<date>` (an Edm.Date comparison, as SAP Business One's DocDate; a source with date_floor_as: datetime " +
        'compares with midnight of that date in company_timezone, as Priority). Set it before the first run, or ' +
        'every unsent document of any year is sent',
      examples: ['2026-01-01'],
    }),
  currencies: z
    .record(z.string().regex(/^[A-Z]{3}$/), z.string().min(1).max(3))
    .default({})
    .meta({
      description:
        "API currency code -> the company's code for it, where they differ (a company whose local currency is NIS): " +
        'orders are written with the company code, documents read back to the API code',
      examples: [{ ILS: 'NIS' }],
    }),
  company_timezone: z
    .string()
    .refine(isTimeZone, { error: 'expected an IANA time zone name, for example Asia/Jerusalem' })
    .optional()
    .meta({
      description:
        "The company's time zone (Priority: TZSERVER and the company's zone, from 21.0): datetime values are " +
        'written at midnight there with its offset instead of UTC',
      examples: ['Asia/Jerusalem'],
    }),
  timeout: duration()
    .default(30_000)
    .meta({ description: 'How long one request may take before it counts as failed', examples: ['30s'] }),
  entities: z.record(z.string(), z.unknown()).default({}).meta({
    description:
      'Overrides of the preset, or the whole mapping without one; a section set to null is dropped',
  }),
});
export type OdataConnectorConfig = z.output<typeof odataConnectorConfigSchema>;
