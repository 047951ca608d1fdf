import { describe, expect, it } from 'vitest';
import {
  ALLOCATION_NUMBER_RULE,
  ERROR_STATUS,
  MAX_JSON_BODY_BYTES,
  ORDER_CANCELLATION,
  RATE_LIMITS_BY_PLAN,
  WEBHOOK_RETRY_DELAYS_SECONDS,
  LIMITS,
  allocationNumberRequired,
  buildContract,
  documentRuleViolations,
  lenient,
  resourceEtag,
  strict,
  strictKit,
  validationItemsFrom,
} from '../../src/contract/index.js';
import { exampleDocumentRequest } from './fixtures.js';

describe('gap request bodies', () => {
  it('confirm: an empty body is a full confirmation; lines are checked', () => {
    expect(strict.ConfirmOrderRequest.parse({})).toEqual({});
    const partial = { lines: [{ line_id: 'ol_1', quantity_confirmed: '0' }], notes: null };
    expect(strict.ConfirmOrderRequest.parse(partial)).toEqual(partial);
    expect(strict.ConfirmOrderRequest.safeParse({ lines: [{ quantity_confirmed: '1' }] }).success).toBe(
      false,
    );
    expect(
      strict.ConfirmOrderRequest.safeParse({ lines: [{ line_id: 'x', quantity_confirmed: '-1' }] }).success,
    ).toBe(false);
  });

  it('acknowledge and reject enforce their lengths', () => {
    expect(strict.AcknowledgeOrderRequest.safeParse({ external_ref: 'SO-1' }).success).toBe(true);
    expect(strict.AcknowledgeOrderRequest.safeParse({ external_ref: '' }).success).toBe(false);
    expect(strict.AcknowledgeOrderRequest.safeParse({ external_ref: 'x'.repeat(65) }).success).toBe(false);
    expect(
      strict.AcknowledgeOrderRequest.safeParse({ external_ref: 'a', acknowledged_at: '2026-11-20' }).success,
    ).toBe(false);
    expect(strict.RejectOrderRequest.safeParse({ reason: 'x'.repeat(500) }).success).toBe(true);
    expect(strict.RejectOrderRequest.safeParse({ reason: 'x'.repeat(501) }).success).toBe(false);
  });

  it('a document body whose totals add up passes', () => {
    const body = exampleDocumentRequest();
    expect(strict.CreateDocumentRequest.parse(body)).toEqual(body);
  });

  it('a document body whose totals do not add up is rejected with item codes', () => {
    const body = {
      ...exampleDocumentRequest(),
      totals: { before_vat: '1250.00', vat: '225.09', with_vat: '1475.00' },
    };
    const result = strict.CreateDocumentRequest.safeParse(body);
    expect(result.success).toBe(false);
    if (result.success) return;
    expect(validationItemsFrom(result.error, body)).toEqual([
      {
        field: 'totals.before_vat',
        code: 'out_of_range',
        message: 'must equal the sum of lines[].total (1250.50)',
      },
      { field: 'totals.with_vat', code: 'out_of_range', message: 'must equal before_vat + vat (1475.09)' },
    ]);
  });

  it('an invoice above 5000.00 before VAT needs an allocation number', () => {
    const body = {
      ...exampleDocumentRequest(),
      totals: { before_vat: '5000.01', vat: '900.00', with_vat: '5900.01' },
      lines: [{ sku: 'A', name: 'A', quantity: '1', unit_price: '5000.01', total: '5000.01' }],
    };
    const result = strict.CreateDocumentRequest.safeParse(body);
    expect(result.success).toBe(false);
    if (result.success) return;
    expect(validationItemsFrom(result.error, body)).toMatchObject([
      { field: 'allocation_number', code: 'required' },
    ]);
    expect(strict.CreateDocumentRequest.safeParse({ ...body, allocation_number: '123456789' }).success).toBe(
      true,
    );
    expect(strict.CreateDocumentRequest.safeParse({ ...body, type: 'delivery_note' }).success).toBe(true);
  });

  it('the allocation threshold is exclusive and applies to credit notes by magnitude', () => {
    expect(ALLOCATION_NUMBER_RULE.threshold).toBe(LIMITS.allocationNumberThreshold);
    expect(allocationNumberRequired('invoice', '5000.00')).toBe(false);
    expect(allocationNumberRequired('invoice', '5000.01')).toBe(true);
    expect(allocationNumberRequired('consolidated_invoice', '9999.00')).toBe(true);
    expect(allocationNumberRequired('credit_note', '-5000.01')).toBe(true);
    expect(allocationNumberRequired('delivery_note', '99999.00')).toBe(false);
  });

  it('malformed amounts give format errors, not a crash of the totals rule', () => {
    const body = {
      ...exampleDocumentRequest(),
      totals: { before_vat: '1.5', vat: '0', with_vat: 'x' },
      lines: 'no',
    };
    const result = strict.CreateDocumentRequest.safeParse(body);
    expect(result.success).toBe(false);
    if (result.success) return;
    const fields = validationItemsFrom(result.error, body).map((item) => item.field);
    expect(fields).toEqual(['totals.before_vat', 'totals.vat', 'totals.with_vat', 'lines']);
  });

  it('documentRuleViolations is usable on its own by a client before sending', () => {
    const violations = documentRuleViolations({
      type: 'credit_note',
      totals: { before_vat: '-40.20', vat: '-7.24', with_vat: '-47.44' },
      lines: [{ total: '-40.20' }],
    });
    expect(violations).toEqual([]);
  });

  it('expense bodies carry the chosen extra fields (G13)', () => {
    const body = {
      vendor_id: 'ven_1',
      doc_type: 'tax_invoice',
      doc_date: '2026-11-20',
      branch_id: 'br_1',
      vat_mode: 'with_vat',
      totals: { before_vat: '100.00', vat: '18.00', with_vat: '118.00', deductible_vat: '18.00' },
      lines: [{ category_id: 'cat_1', amount_before_vat: '100.00', vat_amount: '18.00' }],
      notes: 'office supplies',
      external_ref: 'AP-1',
      file_ids: ['file_9'],
    };
    expect(strict.CreateExpenseRequest.parse(body)).toEqual(body);
    expect(strict.CreateExpenseRequest.safeParse({ ...body, merchant_name: 'x'.repeat(121) }).success).toBe(
      false,
    );
  });
});

describe('gap constants', () => {
  it('the webhook retry schedule has 7 waits (8 attempts) summing to about 23.6 hours', () => {
    expect(WEBHOOK_RETRY_DELAYS_SECONDS).toHaveLength(LIMITS.webhook.maxAttempts - 1);
    const total = WEBHOOK_RETRY_DELAYS_SECONDS.reduce((sum, wait) => sum + wait, 0);
    expect(total / 3600).toBeCloseTo(23.6, 1);
    expect(total).toBeLessThan(24 * 3600);
  });

  it('rate limits cover every plan and the body limit is 10 MiB', () => {
    expect(Object.keys(RATE_LIMITS_BY_PLAN)).toEqual(['supplier', 'Basic', 'Pro', 'Enterprise']);
    expect(MAX_JSON_BODY_BYTES).toBe(10_485_760);
    expect(ERROR_STATUS.payload_too_large).toBe(413);
    expect(
      strict.Problem.safeParse({
        type: 'https://d.test/errors/payload_too_large',
        title: 'Too large',
        status: 413,
        code: 'payload_too_large',
      }).success,
    ).toBe(true);
  });

  it('cancellation maps approved orders to cancelled_after_approval', () => {
    expect(ORDER_CANCELLATION.pending_approval).toEqual({ to: 'cancelled', event: 'order.cancelled' });
    expect(ORDER_CANCELLATION.approved).toEqual({ to: 'cancelled_after_approval', event: 'order.updated' });
    expect(ORDER_CANCELLATION.rejected).toBeUndefined();
  });

  it('ETags are strong, quoted, and change with updated_at', () => {
    const first = resourceEtag('ord_1', '2026-11-20T08:00:00Z');
    expect(first).toMatch(/^"[0-9a-f]{40}"$/);
    expect(resourceEtag('ord_1', '2026-11-20T08:00:00Z')).toBe(first);
    expect(resourceEtag('ord_1', '2026-11-20T08:00:01Z')).not.toBe(first);
  });
});

describe('webhook URLs', () => {
  it('only https by default; loopback http only when the build allows it', () => {
    const body = { url: 'http://127.0.0.1:9000/hook', events: ['ping'] };
    expect(strict.CreateWebhookRequest.safeParse(body).success).toBe(false);
    expect(
      strict.CreateWebhookRequest.safeParse({ ...body, url: 'https://erp.example.test/hook' }).success,
    ).toBe(true);
    const local = buildContract(strictKit, { allowLoopbackHttp: true });
    expect(local.CreateWebhookRequest.safeParse(body).success).toBe(true);
    expect(local.CreateWebhookRequest.safeParse({ ...body, url: 'http://10.0.0.5/hook' }).success).toBe(
      false,
    );
  });

  it('PATCH accepts only active or disabled as status', () => {
    expect(strict.PatchWebhookRequest.safeParse({ status: 'disabled' }).success).toBe(true);
    expect(strict.PatchWebhookRequest.safeParse({ status: 'failing' }).success).toBe(false);
    expect(lenient.PatchWebhookRequest.safeParse({ status: 'failing' }).success).toBe(true);
  });
});
