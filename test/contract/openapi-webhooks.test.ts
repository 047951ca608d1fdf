/**
 * The `webhooks` of docs/openapi.json against what the sandbox really delivers: every signed POST the receivers
 * get during a busy scenario is validated with Ajv (JSON Schema 2020-12, the dialect of OpenAPI 3.1) against the
 * document's request body schema for its event type, and its Service-Signature header against the documented
 * pattern. Prism does not check webhooks; this does.
 */
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { call, field, startReceiver, waitFor, type Receiver } from '../sandbox/platform/fixtures.js';
import { type Json, isJson } from './openapi/document-walk.js';
import { DOCUMENT_PATH } from './openapi/tools.js';

const doc = JSON.parse(readFileSync(DOCUMENT_PATH, 'utf8')) as Json;
const webhooks = doc['webhooks'] as Record<string, { post: Json }>;

/** A JSON pointer segment (RFC 6901). */
const pointer = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

function validatorFor() {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  addFormats.default(ajv);
  ajv.addSchema(doc, 'openapi.json');
  return (type: string, body: unknown): string[] => {
    const validate = ajv.getSchema(
      `openapi.json#/webhooks/${pointer(type)}/post/requestBody/content/${pointer('application/json')}/schema`,
    );
    if (validate === undefined) return [`no schema for event type ${type}`];
    if (validate(body)) return [];
    return (validate.errors ?? []).map((error) => `${type} ${error.instancePath} ${error.message ?? ''}`);
  };
}

describe('webhook deliveries of the sandbox against the document', () => {
  let sandbox: RunningSandbox;
  let supplierReceiver: Receiver;
  let buyerReceiver: Receiver;

  beforeAll(async () => {
    supplierReceiver = await startReceiver();
    buyerReceiver = await startReceiver();
    sandbox = await startSandbox({ seed: 'openapi-webhooks', allowHttpWebhooks: true });
  });

  afterAll(async () => {
    await sandbox?.close();
    await supplierReceiver?.close();
    await buyerReceiver?.close();
  });

  it('delivers bodies and signatures that match the webhooks of docs/openapi.json', async () => {
    const register = async (key: string, url: string, events: string[]) => {
      const created = await call(`${sandbox.baseUrl}/webhooks`, { key, body: { url, events } });
      expect(created.status).toBe(201);
      return String(field(created.json, 'id'));
    };
    const everyType = Object.keys(webhooks);
    const supplierHook = await register(sandbox.keys.supplier, supplierReceiver.url, everyType);
    await register(sandbox.keys.buyer, buyerReceiver.url, everyType);

    const sent = (await sandbox.control.action('buyer_send_order', { count: 2 })) as { order_ids: string[] };
    const [confirmId = '', cancelId = ''] = sent.order_ids;
    await call(`${sandbox.baseUrl}/supplier/orders/${confirmId}/confirm`, {
      key: sandbox.keys.supplier,
      body: {},
    });
    await sandbox.control.action('buyer_cancel_order', { order_id: cancelId });
    await sandbox.control.action('approve_journal_lines', { count: 3 });
    const expense = (await sandbox.control.action('create_expense', {})) as { id: string };
    await sandbox.control.action('approve_expense', { expense_id: expense.id });
    await sandbox.control.action('complete_inventory_count', { branch_id: 'br_tlv' });
    await sandbox.control.action('update_supplier', {});
    await sandbox.control.action('add_unknown_enum', { status: 'on_hold_by_buyer' });
    await call(`${sandbox.baseUrl}/webhooks/${supplierHook}/test`, {
      key: sandbox.keys.supplier,
      method: 'POST',
    });
    const received = () => [...supplierReceiver.received, ...buyerReceiver.received];
    await waitFor(() => (received().length >= 10 ? true : undefined));
    // Let deliveries still in flight arrive: wait until no new one came for a second (at most 20 s), then check
    // everything received. A fixed pause is too short on a busy machine.
    let seen = -1;
    let quietSince = Date.now();
    await waitFor(() => {
      if (received().length !== seen) {
        seen = received().length;
        quietSince = Date.now();
      }
      return Date.now() - quietSince >= 1_000 ? true : undefined;
    }, 20_000);

    const validate = validatorFor();
    const signatureParameter = (webhooks['ping']?.post['parameters'] as Json[]).find(
      (parameter) => parameter['name'] === 'Service-Signature',
    );
    const signature = new RegExp(String((signatureParameter?.['schema'] as Json | undefined)?.['pattern']));
    const problems: string[] = [];
    const types = new Set<string>();
    for (const delivery of received()) {
      const body = JSON.parse(delivery.raw.toString('utf8')) as unknown;
      const type = isJson(body) ? String(body['type']) : 'not an object';
      types.add(type);
      problems.push(...validate(type, body));
      const header = delivery.headers['service-signature'];
      if (typeof header !== 'string' || !signature.test(header))
        problems.push(`${type}: Service-Signature ${header}`);
    }
    expect(problems).toEqual([]);
    // The validator does check: an envelope without its required fields is refused.
    expect(validate('order.created', { id: 'evt_1', type: 'order.created' })).not.toEqual([]);
    expect([...types].sort()).toEqual(
      expect.arrayContaining([
        'expense.approved',
        'expense.created',
        'inventory_count.completed',
        'journal_lines.approved_for_export',
        'order.cancelled',
        'order.created',
        'order.status_changed',
        'order.updated',
        'ping',
        'supplier.updated',
      ]),
    );
  }, 60_000);
});
