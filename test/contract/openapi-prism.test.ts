/**
 * Independent conformance: Stoplight Prism runs as a validation proxy in front of a started sandbox
 * (`prism proxy docs/openapi.json <sandbox>/v2 --errors`) and checks every request and response against the
 * OpenAPI document. Traffic: the realistic calls of the sandbox conformance suites, and requests generated from
 * the document itself (seeded, bounded in count and time) with the supplier key and the buyer key. A response
 * Prism reports as a violation fails the test; an invalid request must be refused by Prism and by the sandbox.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { type Json, operationsOf } from './openapi/document-walk.js';
import { type CallerName, type KnownIds, type RequestCase, TrafficGenerator } from './openapi/generator.js';
import { startPrism, type RunningPrism } from './openapi/prism-process.js';
import { seededRandom } from './openapi/random.js';
import { type ScenarioCaller, type ScenarioStep, forbiddenSteps, scenarioSteps } from './openapi/scenario.js';
import { type Answer, describeCall, redacted, send } from './openapi/send.js';
import { DOCUMENT_PATH, binScript, requireTool } from './openapi/tools.js';

const SEED = Number(process.env['OPENAPI_FUZZ_SEED'] ?? 20261124);
const MAX_GENERATED = 700;
const TIME_BUDGET_MS = 25_000;
const INVALID_PER_OPERATION = 2;
const CONCURRENCY = 4;

const prismScript = binScript('@stoplight/prism-cli', 'prism');
const prismInstalled = requireTool('Stoplight Prism (@stoplight/prism-cli)', prismScript);

/** Whether `status` is one of the operation's documented responses (exact, or a range such as 5XX). */
function documented(doc: Json, method: string, path: string, status: number): boolean {
  const paths = doc['paths'] as Record<string, Record<string, { responses: Record<string, unknown> }>>;
  const responses = paths[path]?.[method.toLowerCase()]?.responses ?? {};
  return Object.keys(responses).some((key) => key === String(status) || key === `${String(status)[0]}XX`);
}

function dataIds(body: unknown, field = 'id'): string[] {
  const data = typeof body === 'object' && body !== null ? (body as { data?: unknown }).data : undefined;
  if (!Array.isArray(data)) return [];
  return data
    .map((item: unknown) =>
      typeof item === 'object' && item !== null ? (item as Record<string, unknown>)[field] : null,
    )
    .filter((id): id is string => typeof id === 'string');
}

function stepCall(step: ScenarioStep): RequestCase {
  return {
    operationId: step.name,
    caller: step.caller === 'buyer' ? 'buyer' : 'supplier',
    method: step.method,
    target: step.target,
    headers: step.headers ?? {},
    ...(step.body === undefined ? {} : { body: step.body }),
    intent: step.expect < 400 ? 'valid' : 'invalid',
    variant: step.name,
  };
}

describe.runIf(prismInstalled)('the sandbox through Prism validating against docs/openapi.json', () => {
  let sandbox: RunningSandbox;
  let prism: RunningPrism;
  let receiver: Server;
  let receiverUrl = '';
  const prismStops: (() => Promise<void>)[] = [];
  const doc = JSON.parse(readFileSync(DOCUMENT_PATH, 'utf8')) as Json;
  const keyOf = (caller: ScenarioCaller | CallerName): string | null =>
    caller === 'none' ? null : caller === 'enterprise' ? sandbox.keys.enterprise : sandbox.keys[caller];
  const direct = (target: string, caller: CallerName) =>
    send(
      sandbox.baseUrl,
      { operationId: '', caller, method: 'GET', target, headers: {}, intent: 'valid', variant: '' },
      keyOf(caller),
    );

  beforeAll(async () => {
    receiver = createServer((_req, res) => res.writeHead(204).end());
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    // https only, as part 8 and the document's pattern say: the plain receiver makes each delivery fail at the
    // TLS handshake, which the scenario tolerates (a test ping still answers 200 with the failed attempt).
    receiverUrl = `https://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    sandbox = await startSandbox({
      seed: 'openapi-prism',
      rateLimitOverrides: { all: { per_minute: 1_000_000, per_day: null } },
    });
    prism = await startPrism(prismScript ?? '', DOCUMENT_PATH, sandbox.baseUrl, {
      track: (stop) => prismStops.push(stop),
    });
  }, 120_000);

  afterAll(async () => {
    // Every Prism spawned, ready or not (a slow start may outlive beforeAll).
    await Promise.all(prismStops.map((stop) => stop()));
    await sandbox?.close();
    await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()));
  });

  it("answers the conformance suites' calls as documented, with no violation", async () => {
    const orders = await direct('/supplier/orders?status=pending_approval&limit=10', 'supplier');
    const expense = (await sandbox.control.action('create_expense', {})) as { id: string };
    const approved = (await sandbox.control.action('approve_expense', { expense_id: expense.id })) as {
      journal_line_ids: string[];
    };
    const supplierClient = sandbox.clients.find((client) => client.key === sandbox.keys.supplier);
    const answers = new Map<string, unknown>();
    const context = {
      pendingOrderIds: dataIds(orders.body),
      journalLineIds: approved.journal_line_ids,
      receiverUrl,
      supplierClientId: supplierClient?.client_id ?? 'missing',
      supplierKey: sandbox.keys.supplier,
      runId: `s${SEED}`,
    };
    const problems: string[] = [];
    let checked = 0;
    for (let index = 0; ; index += 1) {
      const step = scenarioSteps(context, answers)[index];
      if (step === undefined) break;
      const call = stepCall(step);
      const answer = await send(prism.url, call, keyOf(step.caller));
      answers.set(step.name, answer.body);
      checked += 1;
      if (answer.prismError !== null || answer.violations.length > 0 || answer.status !== step.expect) {
        problems.push(
          `${step.name}: expected ${step.expect}; ${describeCall(call, answer)} ${redacted(JSON.stringify(answer.body)).slice(0, 300)}`,
        );
      }
    }
    for (const step of forbiddenSteps(context)) {
      const call = stepCall(step);
      const viaPrism = await send(prism.url, call, keyOf(step.caller));
      const viaSandbox = await send(sandbox.baseUrl, call, keyOf(step.caller));
      checked += 1;
      if (viaPrism.prismError !== 'UNPROCESSABLE_ENTITY')
        problems.push(`Prism accepted ${describeCall(call, viaPrism)}`);
      if (viaSandbox.status !== step.expect) problems.push(`sandbox: ${describeCall(call, viaSandbox)}`);
    }
    console.info(`openapi conformance: ${checked} scenario calls through Prism`);
    expect(context.pendingOrderIds.length).toBeGreaterThanOrEqual(3);
    expect(context.journalLineIds.length).toBeGreaterThan(0);
    expect(problems).toEqual([]);
  }, 60_000);

  it('accepts what part 9 allows (a new enum value, a new field) and reports a response that breaks the document', async () => {
    const drift = (await sandbox.control.action('add_unknown_enum', { status: 'on_hold_by_buyer' })) as {
      order_id: string;
    };
    const call = stepCall({
      name: 'drifted-order',
      caller: 'supplier',
      method: 'GET',
      target: `/supplier/orders/${drift.order_id}`,
      expect: 200,
    });
    const tolerated = await send(prism.url, call, keyOf('supplier'));
    expect(describeCall(call, tolerated)).not.toContain('UNPROCESSABLE');
    expect(tolerated.violations).toEqual([]);
    expect(tolerated.status).toBe(200);
    expect(tolerated.body).toMatchObject({ status: 'on_hold_by_buyer', priority_level: 'urgent' });

    await sandbox.control.action('corrupt_next_list_item', { count: 1 });
    const list = { ...call, variant: 'corrupted-list', target: '/supplier/orders?limit=5' };
    const broken = await send(prism.url, list, keyOf('supplier'));
    expect(broken.prismError).toBe('VIOLATIONS');
    expect(broken.violations.join(' ')).toMatch(/response/);
  }, 30_000);

  it('answers requests generated from the document without a violation, and refuses the invalid ones', async () => {
    const ids: KnownIds = await discoverIds();
    const generator = new TrafficGenerator(doc, seededRandom(SEED), ids, `g${SEED}`);
    // Three rounds, so a slow machine that runs out of time still covers every operation in the first:
    // every parameter and field, then one forbidden mutation each, then required fields only.
    const rounds: RequestCase[][] = [[], [], []];
    for (const op of operationsOf(doc)) {
      for (const caller of ['supplier', 'buyer'] as const) {
        const [full, minimal] = generator.valid(op, caller);
        if (full !== undefined) rounds[0]?.push(full);
        rounds[1]?.push(...generator.invalid(op, caller, INVALID_PER_OPERATION));
        if (minimal !== undefined) rounds[2]?.push(minimal);
      }
    }
    // Round 0 runs to the end whatever the time (bounded by its count: one request per operation and caller);
    // the time budget only cuts the later rounds.
    const started = Date.now();
    const firstRound = (rounds[0] ?? []).slice(0, MAX_GENERATED);
    const laterRounds = rounds
      .slice(1)
      .flat()
      .slice(0, MAX_GENERATED - firstRound.length);
    const byId = new Map(operationsOf(doc).map((op) => [op.operationId, op]));
    const problems: string[] = [];
    const forwardedOps = new Set<string>();
    const tally = { valid: 0, invalid: 0, success: 0, sandboxErrors: 0 };
    const check = async (call: RequestCase) => {
      const answer: Answer = await send(prism.url, call, keyOf(call.caller));
      const op = byId.get(call.operationId);
      if (call.intent === 'valid') {
        tally.valid += 1;
        if (answer.prismError !== null || answer.violations.length > 0)
          problems.push(describeCall(call, answer));
        else if (op !== undefined && !documented(doc, op.method, op.path, answer.status))
          problems.push(`undocumented status: ${describeCall(call, answer)}`);
        else forwardedOps.add(call.operationId);
        if (answer.status < 300) tally.success += 1;
        else tally.sandboxErrors += 1;
      } else {
        tally.invalid += 1;
        const sandboxAnswer = await send(sandbox.baseUrl, call, keyOf(call.caller));
        if (answer.prismError !== 'UNPROCESSABLE_ENTITY')
          problems.push(`Prism accepted a request the generator made invalid: ${describeCall(call, answer)}`);
        if (sandboxAnswer.status < 400 || sandboxAnswer.status >= 500)
          problems.push(`the sandbox did not refuse: ${describeCall(call, sandboxAnswer)}`);
      }
    };
    const runAll = async (cases: readonly RequestCase[], deadline: number) => {
      let next = 0;
      const worker = async () => {
        while (next < cases.length && Date.now() < deadline) {
          const call = cases[next];
          next += 1;
          if (call !== undefined) await check(call);
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, () => worker()));
    };
    await runAll(firstRound, Number.POSITIVE_INFINITY);
    const firstRoundOps = new Set(forwardedOps);
    const firstRoundSent = tally.valid + tally.invalid;
    // The later rounds stop at their budget, and in any case 30 s before the test's own timeout.
    await runAll(laterRounds, Math.min(Date.now() + TIME_BUDGET_MS, started + 90_000));
    const operations = operationsOf(doc).length;
    console.info(
      `openapi conformance: seed ${SEED}; ${operations} operations; ${tally.valid} valid requests ` +
        `(${tally.success} answered 2xx, ${tally.sandboxErrors} with a documented problem), ` +
        `${tally.invalid} invalid requests; ${forwardedOps.size} operations answered without violation`,
    );
    expect(problems).toEqual([]);
    // Coverage is asserted on round 0 only, which ran in full: every operation, both callers.
    expect(firstRoundSent).toBe(firstRound.length);
    expect(firstRound.length).toBeGreaterThanOrEqual(operations);
    expect(firstRoundOps.size).toBe(operations);
  }, 120_000);

  /** Real ids per path parameter, so generated requests reach existing resources as well as missing ones. */
  async function discoverIds(): Promise<KnownIds> {
    const read = async (target: string, caller: CallerName, field = 'id') =>
      dataIds((await direct(target, caller)).body, field);
    const products = await read('/products?limit=20', 'buyer', 'sku');
    return {
      order_id: await read('/supplier/orders?limit=20', 'supplier'),
      buyer_id: await read('/supplier/buyers', 'supplier'),
      document_id: await read('/supplier/documents?limit=20', 'supplier'),
      price_list_id: await read('/supplier/price-lists', 'supplier'),
      supplier_id: await read('/suppliers', 'buyer'),
      count_id: await read('/inventory-counts', 'buyer'),
      sku: products,
    };
  }
});
