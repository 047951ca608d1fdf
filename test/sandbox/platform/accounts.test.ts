/**
 * Accounts created through the harness (POST /_sandbox/accounts, a sandbox extension documented in
 * docs/sandbox.md): each has its own key and a world of its own data, over real HTTP, kept in a real state file.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createDomain } from '../../../src/sandbox/domain/index.js';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/index.js';
import { documentBody } from '../domain/harness.js';
import { call, field, startReceiver, waitFor, type Receiver } from './fixtures.js';

const opened: Array<{ close(): Promise<void> }> = [];
const folders: string[] = [];

afterEach(async () => {
  for (const thing of opened.splice(0).reverse()) await thing.close();
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

async function sandboxAt(statePath?: string): Promise<RunningSandbox> {
  const sandbox = await startSandbox({
    createDomain,
    allowHttpWebhooks: true,
    ...(statePath === undefined ? {} : { statePath }),
  });
  opened.push(sandbox);
  return sandbox;
}

async function receiver(): Promise<Receiver> {
  const started = await startReceiver();
  opened.push(started);
  return started;
}

/** The ids of every item of a list, walking its pages. */
async function listIds(sandbox: RunningSandbox, key: string, path: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const query: string = cursor === null ? 'limit=200' : `limit=200&cursor=${encodeURIComponent(cursor)}`;
    const page = await call(`${sandbox.baseUrl}${path}?${query}`, { key });
    expect(page.status, `GET ${path}: ${page.text}`).toBe(200);
    for (const item of field(page.json, 'data') as Array<{ id: string }>) ids.push(item.id);
    cursor = (field(page.json, 'next_cursor') as string | null | undefined) ?? null;
  } while (cursor !== null);
  return ids;
}

async function approvedIds(sandbox: RunningSandbox, account: string | undefined, count: number) {
  const result = (await sandbox.control.action('approve_journal_lines', { count }, account)) as {
    journal_line_ids: string[];
  };
  return result.journal_line_ids;
}

describe('accounts created through the harness', () => {
  it('gives each account its own key, identity and world of data, sharing no id with another', async () => {
    const sandbox = await sandboxAt();
    const first = await sandbox.control.createAccount({ type: 'buyer', name: 'Falafel Hashalom Ltd' });
    const second = await sandbox.control.createAccount({ type: 'buyer', name: 'Cafe Ha-Namal Ltd' });
    expect(first).toMatchObject({ id: 'acc_buyer_0001', type: 'buyer', name: 'Falafel Hashalom Ltd' });
    expect(new Set([first.key, second.key, sandbox.keys.buyer]).size).toBe(3);

    const listed = field((await call(`${sandbox.controlUrl}/keys`)).json, 'keys') as Array<{
      key: string;
      purpose: string;
    }>;
    expect(listed).toContainEqual(expect.objectContaining({ key: first.key, purpose: `buyer:${first.id}` }));
    const me = await call(`${sandbox.baseUrl}/me`, { key: second.key });
    expect(field(me.json, 'account')).toMatchObject({
      id: second.id,
      name: 'Cafe Ha-Namal Ltd',
      type: 'buyer',
    });

    const lines = async (key: string) => listIds(sandbox, key, '/accounting/journal-lines');
    const [demoBefore, firstBefore, secondBefore] = [
      await lines(sandbox.keys.buyer),
      await lines(first.key),
      await lines(second.key),
    ];
    const added = await approvedIds(sandbox, first.id, 5);
    expect(added).toHaveLength(5);
    expect(await lines(first.key)).toEqual(expect.arrayContaining(added));
    expect(await lines(first.key)).toHaveLength(firstBefore.length + 5);
    expect(await lines(second.key)).toEqual(secondBefore);
    expect(await lines(sandbox.keys.buyer)).toEqual(demoBefore);

    const all = [...demoBefore, ...(await lines(first.key)), ...secondBefore];
    expect(new Set(all).size).toBe(all.length);
    // The harness reads each world apart.
    const linesIn = async (account?: string) =>
      Object.keys(field(await sandbox.control.state(account), 'journalLines') as Record<string, unknown>);
    expect(await linesIn(first.id)).toEqual(expect.arrayContaining(added));
    expect(await linesIn()).not.toContain(added[0]);
  });

  it("delivers a created supplier's events to that account's endpoints only, under its own id", async () => {
    const sandbox = await sandboxAt();
    const group = await sandbox.control.createAccount({ type: 'supplier', name: 'Group Entity B' });
    const [ownHooks, demoHooks] = [await receiver(), await receiver()];
    const register = async (key: string, url: string) => {
      const created = await call(`${sandbox.baseUrl}/webhooks`, {
        key,
        body: { url, events: ['order.created'] },
      });
      expect(created.status, created.text).toBe(201);
      return String(field(created.json, 'id'));
    };
    const ownEndpoint = await register(group.key, ownHooks.url);
    const demoEndpoint = await register(sandbox.keys.supplier, demoHooks.url);

    const sent = (await sandbox.control.action('buyer_send_order', { count: 1 }, group.id)) as {
      order_ids: string[];
    };
    const orderId = sent.order_ids[0] ?? '';
    expect(await listIds(sandbox, group.key, '/supplier/orders')).toContain(orderId);
    expect(await listIds(sandbox, sandbox.keys.supplier, '/supplier/orders')).not.toContain(orderId);
    // Neither key reads the other world's order.
    const [demoOrderId = ''] = await listIds(sandbox, sandbox.keys.supplier, '/supplier/orders');
    const orderAs = async (key: string, id: string) =>
      (await call(`${sandbox.baseUrl}/supplier/orders/${id}`, { key })).status;
    expect(await orderAs(group.key, orderId)).toBe(200);
    expect(await orderAs(sandbox.keys.supplier, orderId)).toBe(404);
    expect(await orderAs(sandbox.keys.supplier, demoOrderId)).toBe(200);
    expect(await orderAs(group.key, demoOrderId)).toBe(404);

    await waitFor(() => (ownHooks.received.length > 0 ? true : undefined));
    const envelope = JSON.parse(ownHooks.received[0]?.raw.toString('utf8') ?? '{}') as Record<
      string,
      unknown
    >;
    expect(envelope).toMatchObject({ type: 'order.created', account_id: group.id });
    expect(field(envelope, 'data', 'id')).toBe(orderId);
    const deliveries = field(await sandbox.control.state(), 'platform', 'deliveries') as Array<{
      webhook_id: string;
    }>;
    expect(deliveries.filter((delivery) => delivery.webhook_id === ownEndpoint)).toHaveLength(1);
    expect(deliveries.filter((delivery) => delivery.webhook_id === demoEndpoint)).toHaveLength(0);
    expect(demoHooks.received).toHaveLength(0);
  });

  it('lets a created supplier attach only its own uploaded files', async () => {
    const sandbox = await sandboxAt();
    const group = await sandbox.control.createAccount({ type: 'supplier', name: 'Group Entity C' });
    const form = new FormData();
    form.append('purpose', 'document_attachment');
    form.append('file', new Blob([Buffer.from('%PDF-1.4\n%%EOF\n')], { type: 'application/pdf' }), 'inv.pdf');
    const upload = async (key: string) => {
      const response = await fetch(`${sandbox.baseUrl}/files`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}` },
        body: form,
      });
      expect(response.status).toBe(201);
      return String(((await response.json()) as { id: string }).id);
    };
    const own = await upload(group.key);
    const demo = await upload(sandbox.keys.supplier);
    // The demo buyer's endpoint: a created supplier's documents go to its own world's buyer, which has no key.
    const buyerHooks = await receiver();
    const buyerEndpoint = await call(`${sandbox.baseUrl}/webhooks`, {
      key: sandbox.keys.buyer,
      body: { url: buyerHooks.url, events: ['document.created'] },
    });
    expect(buyerEndpoint.status).toBe(201);
    const invoice = (number: string, fileId: string) => documentBody({ number, file_ids: [fileId] });
    const create = (number: string, fileId: string) =>
      call(`${sandbox.baseUrl}/supplier/documents`, {
        key: group.key,
        body: invoice(number, fileId),
        headers: { 'idempotency-key': `doc-${number}` },
      });
    const accepted = await create('GRP-C-1', own);
    expect(accepted.status, accepted.text).toBe(201);
    const refused = await create('GRP-C-2', demo);
    expect(refused.status).toBe(422);
    expect(refused.text).toContain(demo);
    // The same document in the demo world reaches the demo buyer: the event type is delivered, and only that one.
    const demoDocument = await call(`${sandbox.baseUrl}/supplier/documents`, {
      key: sandbox.keys.supplier,
      body: invoice('DEMO-C-1', demo),
      headers: { 'idempotency-key': 'doc-DEMO-C-1' },
    });
    expect(demoDocument.status, demoDocument.text).toBe(201);
    await waitFor(() => (buyerHooks.received.length > 0 ? true : undefined));
    const numbers = buyerHooks.received.map(
      (hit) => field(JSON.parse(hit.raw.toString('utf8')), 'data', 'number') as string,
    );
    expect(numbers).toEqual(['DEMO-C-1']);
    const stored = field(await sandbox.control.state(), 'platform', 'deliveries') as Array<{
      webhook_id: string;
    }>;
    const toBuyer = stored.filter((delivery) => delivery.webhook_id === field(buyerEndpoint.json, 'id'));
    expect(toBuyer).toHaveLength(1);
  });

  it("serves an Enterprise buyer its own world's export and its own audit log", async () => {
    const sandbox = await sandboxAt();
    const office = await sandbox.control.createAccount({
      type: 'buyer',
      name: 'Big client',
      plan: 'Enterprise',
    });
    expect(office).toMatchObject({ plan: 'Enterprise', scopes: expect.arrayContaining(['exports:manage']) });
    const own = await listIds(sandbox, office.key, '/accounting/journal-lines');
    const created = await call(`${sandbox.baseUrl}/exports`, {
      key: office.key,
      body: { resources: ['journal_lines'], format: 'ndjson' },
    });
    expect(created.status, created.text).toBe(202);
    const job = await waitFor(async () => {
      const response = await call(`${sandbox.baseUrl}/exports/${String(field(created.json, 'id'))}`, {
        key: office.key,
      });
      return field(response.json, 'status') === 'completed' ? response.json : undefined;
    });
    const text = await (await fetch(String(field(job, 'files', 0, 'download_url')))).text();
    const exported = text
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { id: string }).id);
    expect(exported.length).toBeGreaterThan(0);
    expect(new Set(exported)).toEqual(new Set(own));

    const audit = await call(`${sandbox.baseUrl}/audit/requests?limit=200`, { key: office.key });
    expect(audit.status, audit.text).toBe(200);
    const clients = (field(audit.json, 'data') as Array<{ client_id: string }>).map(
      (entry) => entry.client_id,
    );
    expect(clients.length).toBeGreaterThan(0);
    expect(new Set(clients)).toEqual(new Set([office.client_id]));
  });

  it('keeps created accounts, their keys and their worlds in the state file across restarts', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'sandbox-accounts-'));
    folders.push(folder);
    const statePath = join(folder, 'sandbox.db');
    const first = await sandboxAt(statePath);
    const office = await first.control.createAccount({ type: 'buyer', name: 'Office client 1', seed: 7 });
    const quiet = await first.control.createAccount({ type: 'buyer', name: 'Office client 2' });
    const added = await approvedIds(first, office.id, 3);
    const quietAdded = await approvedIds(first, quiet.id, 3);
    const officeLines = await listIds(first, office.key, '/accounting/journal-lines');
    const quietLines = await listIds(first, quiet.key, '/accounting/journal-lines');
    await first.close();

    // The second run uses one world only: its save rewrites that world and keeps the other as the first run left it.
    const second = await sandboxAt(statePath);
    expect(await second.control.accounts()).toEqual([office, quiet]);
    expect(await listIds(second, office.key, '/accounting/journal-lines')).toEqual(officeLines);
    const more = await approvedIds(second, office.id, 3);
    await second.close();

    const third = await sandboxAt(statePath);
    const officeAfter = await listIds(third, office.key, '/accounting/journal-lines');
    expect(officeAfter).toEqual(expect.arrayContaining([...added, ...more]));
    expect(officeAfter).toHaveLength(officeLines.length + 3);
    expect(await listIds(third, quiet.key, '/accounting/journal-lines')).toEqual(quietLines);
    expect(quietLines).toEqual(expect.arrayContaining(quietAdded));
    const next = await third.control.createAccount({ type: 'supplier', name: 'Third' });
    expect(next.id).toBe('acc_supplier_0003');
  });

  it("reads a harness body as JSON whatever its content type (curl -d sends a form's)", async () => {
    const sandbox = await sandboxAt();
    const office = await sandbox.control.createAccount({ type: 'buyer', name: 'Office client' });
    const before = await listIds(sandbox, office.key, '/accounting/journal-lines');
    const sent = await call(`${sandbox.controlUrl}/actions/approve_journal_lines?account=${office.id}`, {
      raw: '{"count":3}',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(sent.status, sent.text).toBe(200);
    expect(field(sent.json, 'journal_line_ids')).toHaveLength(3);
    expect(await listIds(sandbox, office.key, '/accounting/journal-lines')).toHaveLength(before.length + 3);
    const form = await call(`${sandbox.controlUrl}/accounts`, {
      raw: 'type=buyer&name=X',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(400);
    expect(form.text).toContain('not valid JSON');
  });

  it('resets every world to its seed and keeps the accounts', async () => {
    const sandbox = await sandboxAt();
    const office = await sandbox.control.createAccount({ type: 'buyer', name: 'Office client', seed: 11 });
    const seeded = await listIds(sandbox, office.key, '/accounting/journal-lines');
    await approvedIds(sandbox, office.id, 4);
    expect(await listIds(sandbox, office.key, '/accounting/journal-lines')).toHaveLength(seeded.length + 4);
    await sandbox.control.reset();
    expect(await listIds(sandbox, office.key, '/accounting/journal-lines')).toEqual(seeded);
  });

  it('answers a wrong account request with 422 naming each field, and an unknown account with 404', async () => {
    const sandbox = await sandboxAt();
    const wrong = await call(`${sandbox.controlUrl}/accounts`, { body: { type: 'owner', seed: -1 } });
    expect(wrong.status).toBe(422);
    const fields = (field(wrong.json, 'errors') as Array<{ field: string }>).map((error) => error.field);
    expect(fields.sort()).toEqual(['name', 'seed', 'type']);
    const wrongPlan = await call(`${sandbox.controlUrl}/accounts`, {
      body: { type: 'supplier', name: '  ', plan: 'Enterprise', seed: 2 ** 32 },
    });
    expect(wrongPlan.status).toBe(422);
    expect(field(wrongPlan.json, 'errors')).toEqual([
      expect.objectContaining({ field: 'name' }),
      expect.objectContaining({ field: 'seed', code: 'out_of_range' }),
      expect.objectContaining({ field: 'plan', message: 'For a supplier: supplier.' }),
    ]);
    const unknown = await call(`${sandbox.controlUrl}/actions/approve_journal_lines?account=acc_buyer_9999`, {
      body: { count: 1 },
    });
    expect(unknown.status).toBe(404);
    expect(unknown.text).toContain('GET /_sandbox/accounts');
    const extra = await call(`${sandbox.controlUrl}/accounts`, {
      body: { type: 'buyer', name: 'X', colour: 'red' },
    });
    expect(extra.status).toBe(422);
    expect(field(extra.json, 'errors')).toEqual([expect.objectContaining({ field: 'colour' })]);
    const empty = await call(`${sandbox.controlUrl}/state?account=`);
    expect(empty.status).toBe(404);
    expect(empty.text).toContain('leave it out for the demo world');
    const resetOne = await call(`${sandbox.controlUrl}/reset?account=acc_buyer_0001`, { method: 'POST' });
    expect(resetOne.status).toBe(400);
    expect(resetOne.text).toContain('takes no ?account=');
    expect(await sandbox.control.accounts()).toEqual([]);
  });
});
