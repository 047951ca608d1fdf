import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ApiError,
  ConflictApiError,
  CONTRACT_ERROR_CODES,
  PlanRequiredApiError,
  ValidationApiError,
} from '../../src/client/index.js';
import { ERROR_STATUS } from '../../src/contract/index.js';
import { makeClient, type TestClient } from './helpers/client.js';
import { me } from './helpers/fixtures.js';
import { html, json, problem, startScriptServer, type ScriptServer } from './helpers/script-server.js';

let server: ScriptServer;
let client: TestClient;

beforeEach(async () => {
  server = await startScriptServer();
  client = makeClient(server, { retry: { maxAttempts: 2 } });
});

afterEach(async () => {
  await client.close();
  await server.close();
});

describe('error responses', () => {
  it('maps every error code of the contract to an ApiError with that code and the right retry flag', async () => {
    for (const code of CONTRACT_ERROR_CODES) {
      const status = ERROR_STATUS[code];
      server.enqueue(problem(status, code), json(200, me()));
      const outcome = await client.api.account.me().then(
        () => 'recovered',
        (error: unknown) => error,
      );
      const retryable = [429, 500, 502, 503, 504].includes(status);
      if (retryable) {
        expect(outcome, code).toBe('recovered');
        expect(client.calls.at(-2)).toMatchObject({ status, errorCode: code });
      } else {
        expect(outcome, code).toBeInstanceOf(ApiError);
        expect(outcome).toMatchObject({ status, code, retryable: false });
        await client.api.account.me(); // consumes the unused success answer
      }
      if (code === 'validation_error') expect(outcome).toBeInstanceOf(ValidationApiError);
      if (code === 'plan_required') expect(outcome).toBeInstanceOf(PlanRequiredApiError);
      if (code === 'conflict') expect(outcome).toBeInstanceOf(ConflictApiError);
    }
  });

  it('parses a problem+json validation error with its items, status, method, path and request id', async () => {
    server.setFallback(
      problem(422, 'validation_error', {
        errors: [
          { field: 'totals.before_vat', code: 'must_be_positive', message: 'must be > 0' },
          { field: 'allocation_number', code: 'required' },
        ],
      }),
    );
    const error = await client.api.documents
      .create(
        {
          type: 'invoice',
          number: 'INV-1',
          date: '2026-11-21',
          buyer_id: 'buy_1',
          currency: 'ILS',
          totals: { before_vat: '0.00', vat: '0.00', with_vat: '0.00' },
          lines: [{ sku: 'A', name: 'A', quantity: '1', unit_price: '0.00', total: '0.00' }],
        },
        { idempotencyKey: 'invoice/INV-1' },
      )
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ValidationApiError);
    const validation = error as ValidationApiError;
    expect(validation.items).toEqual([
      { field: 'totals.before_vat', code: 'must_be_positive', message: 'must be > 0' },
      { field: 'allocation_number', code: 'required' },
    ]);
    expect(validation).toMatchObject({
      status: 422,
      code: 'validation_error',
      method: 'POST',
      path: '/supplier/documents',
      retryable: false,
    });
    expect(validation.requestId).toMatch(/^req_\d+$/);
    expect(validation.message).toContain(validation.requestId ?? 'missing');
    expect(validation.message).toContain('scripted validation_error');
    // The message alone (a log line, a failed run's error) names every refused field.
    expect(validation.message).toContain('[totals.before_vat: must be > 0; allocation_number: required]');
  });

  it('carries upgrade_url on plan_required', async () => {
    server.setFallback(problem(403, 'plan_required', { upgrade_url: 'https://app.example.test/upgrade' }));
    const error = await client.api.reference
      .branches()
      .firstPage()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PlanRequiredApiError);
    expect((error as PlanRequiredApiError).upgradeUrl).toBe('https://app.example.test/upgrade');
  });

  it('carries the items of a 409 conflict (journal lines already exported)', async () => {
    server.setFallback(
      problem(409, 'conflict', {
        errors: [{ field: 'journal_line_ids[1]', code: 'already_exported', message: 'exported in eb_1' }],
      }),
    );
    const error = await client.api.accounting
      .createExport({ journal_line_ids: ['jl_1', 'jl_2'] }, { idempotencyKey: 'batch-1' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConflictApiError);
    expect((error as ConflictApiError).items[0]?.code).toBe('already_exported');
    expect(server.requests).toHaveLength(1);
  });

  it('turns an HTML 502 page into a clear, retryable internal_error after retrying', async () => {
    server.setFallback(html(502, '<html><body><h1>502 Bad Gateway</h1></body></html>'));
    const error = await client.api.account.me().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 502, code: 'internal_error', retryable: true, attempts: 2 });
    expect((error as ApiError).message).toBe(
      'GET /me failed with HTTP 502 internal_error: response was not a problem document (text/html, 50 bytes)',
    );
    expect(server.requests).toHaveLength(2);
  });

  it('treats a JSON error body without a code by its status', async () => {
    server.setFallback(json(404, { message: 'nope' }));
    await expect(client.api.orders.get('ord_x')).rejects.toMatchObject({ status: 404, code: 'not_found' });
  });

  it('keeps an unknown code from a newer API version', async () => {
    server.setFallback(problem(403, 'quota_frozen'));
    await expect(client.api.account.me()).rejects.toMatchObject({ code: 'quota_frozen', retryable: false });
  });

  it('rejects a 2xx body that is not JSON as invalid_response', async () => {
    server.setFallback(html(200, '<html>maintenance</html>'));
    await expect(client.api.account.me()).rejects.toMatchObject({ code: 'invalid_response', status: 200 });
  });

  it('rejects a single resource that fails its schema as invalid_response, keeping the raw body', async () => {
    server.setFallback(json(200, { id: 'ord_1' }));
    const error = await client.api.orders.get('ord_1').catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'invalid_response' });
    expect((error as ApiError).body).toEqual({ id: 'ord_1' });
    expect(Object.keys(error as object)).not.toContain('body'); // kept out of serialized logs
    expect(client.api.driftStats()['Order']?.quarantined).toBe(1);
  });
});
