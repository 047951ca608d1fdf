/** The supplier operations of part 4.2-4.5, with the gap operations G1-G3 and G8. */
import { DOCUMENT_TYPES, BUYER_STATUSES, ORDER_STATUSES } from '../enums.js';
import { DOCUMENT_OPERATIONS, ORDER_OPERATIONS } from '../gaps.js';
import { LIMITS } from '../limits.js';
import { type OperationSpec, problemWith } from './operation.js';
import { commaList, paramRef, pathParam, queryParam } from './parameters.js';

const TAG_BUYERS = 'Supplier buyers';
const TAG_ORDERS = 'Supplier orders';
const TAG_DOCUMENTS = 'Supplier documents';
const TAG_CATALOG = 'Supplier catalog';

const buyerId = pathParam('buyer_id', 'Id of the linked buyer.');
const orderId = pathParam('order_id', 'Id of the order.');
const documentId = pathParam('document_id', 'Id of the document.');
const sku = pathParam('sku', `Product SKU, up to ${LIMITS.length.sku} characters, URL-encoded if needed.`, {
  type: 'string',
  minLength: 1,
  maxLength: LIMITS.length.sku,
});
const priceListId = pathParam('price_list_id', 'Id of the price list.');
const paging = [paramRef('cursor'), paramRef('limit')];

const ORDER = { schema: 'Order', etag: true } as const;

export const SUPPLIER_OPERATIONS: readonly OperationSpec[] = [
  {
    method: 'get',
    path: '/supplier/buyers',
    operationId: 'listSupplierBuyers',
    summary: 'List linked buyers',
    tag: TAG_BUYERS,
    scope: 'supplier.buyers:read',
    parameters: [...paging, paramRef('updated_since')],
    success: [{ status: 200, description: 'A page of supplier buyers.', schema: 'SupplierBuyerPage' }],
  },
  {
    method: 'get',
    path: '/supplier/buyers/{buyer_id}',
    operationId: 'getSupplierBuyer',
    summary: 'Read a linked buyer',
    tag: TAG_BUYERS,
    scope: 'supplier.buyers:read',
    parameters: [buyerId],
    success: [
      { status: 200, description: 'The supplier buyer, with its ETag.', schema: 'SupplierBuyer', etag: true },
    ],
    errors: [404],
  },
  {
    method: 'patch',
    path: '/supplier/buyers/{buyer_id}',
    operationId: 'updateSupplierBuyer',
    summary: "Set a buyer's customer number or ERP reference",
    tag: TAG_BUYERS,
    scope: 'supplier.buyers:write',
    parameters: [buyerId],
    ifMatch: true,
    body: 'PatchSupplierBuyerRequest',
    success: [
      { status: 200, description: 'The updated supplier buyer.', schema: 'SupplierBuyer', etag: true },
    ],
    errors: [404, 412],
  },
  {
    method: 'post',
    path: '/supplier/buyer-invitations',
    operationId: 'createBuyerInvitation',
    summary: 'Invite a new buyer',
    description: 'Does not create a user; returns an onboarding link.',
    tag: TAG_BUYERS,
    scope: 'supplier.buyers:write',
    idempotencyKey: 'optional',
    body: 'CreateBuyerInvitationRequest',
    success: [{ status: 201, description: 'The invitation, in state sent.', schema: 'BuyerInvitation' }],
    errors: [409],
  },
  {
    method: 'get',
    path: '/supplier/orders',
    operationId: 'listSupplierOrders',
    summary: 'List orders from linked buyers',
    tag: TAG_ORDERS,
    scope: 'supplier.orders:read',
    parameters: [
      ...paging,
      paramRef('updated_since'),
      paramRef('from'),
      paramRef('to'),
      queryParam(
        'status',
        commaList(ORDER_STATUSES),
        'Comma-separated order statuses; default every status.',
      ),
      queryParam('buyer_id', { type: 'string' }, 'Only orders of this buyer.'),
      paramRef('expand'),
    ],
    success: [{ status: 200, description: 'A page of orders.', schema: 'OrderPage' }],
  },
  {
    method: 'get',
    path: '/supplier/orders/{order_id}',
    operationId: 'getSupplierOrder',
    summary: 'Read an order',
    tag: TAG_ORDERS,
    scope: 'supplier.orders:read',
    parameters: [orderId, paramRef('expand')],
    success: [{ status: 200, description: 'The order, with its ETag.', ...ORDER }],
    errors: [404],
  },
  {
    method: 'post',
    path: ORDER_OPERATIONS.confirm.path,
    operationId: 'confirmOrder',
    summary: 'Confirm an order, fully or partially',
    description:
      'An empty body is a full confirmation; lines[] confirms partially, substitutes items or adjusts prices. ' +
      'Allowed from pending_approval; an identical repeat on a confirmed order is an idempotent 200.',
    tag: TAG_ORDERS,
    scope: ORDER_OPERATIONS.confirm.scope,
    parameters: [orderId],
    body: 'ConfirmOrderRequest',
    bodyRequired: false,
    success: [{ status: 200, description: 'The confirmed order.', ...ORDER }],
    errors: [404, 409],
    gap: 'G1',
  },
  {
    method: 'post',
    path: ORDER_OPERATIONS.acknowledge.path,
    operationId: 'acknowledgeOrder',
    summary: "Record the supplier's ERP sales order number",
    tag: TAG_ORDERS,
    scope: ORDER_OPERATIONS.acknowledge.scope,
    parameters: [orderId],
    body: 'AcknowledgeOrderRequest',
    success: [{ status: 200, description: 'The acknowledged order.', ...ORDER }],
    errors: [404, 409],
    gap: 'G2',
  },
  {
    method: 'post',
    path: ORDER_OPERATIONS.reject.path,
    operationId: 'rejectOrder',
    summary: 'Reject an order',
    tag: TAG_ORDERS,
    scope: ORDER_OPERATIONS.reject.scope,
    parameters: [orderId],
    body: 'RejectOrderRequest',
    success: [{ status: 200, description: 'The rejected order.', ...ORDER }],
    errors: [404, 409],
    gap: 'G3',
  },
  {
    method: 'get',
    path: DOCUMENT_OPERATIONS.create.path,
    operationId: 'listSupplierDocuments',
    summary: 'List documents the supplier issued',
    tag: TAG_DOCUMENTS,
    scope: 'supplier.documents:read',
    parameters: documentListParameters(),
    success: [{ status: 200, description: 'A page of documents.', schema: 'DocumentPage' }],
  },
  {
    method: 'post',
    path: DOCUMENT_OPERATIONS.create.path,
    operationId: 'createSupplierDocument',
    summary: 'Issue a delivery note, invoice, credit note or consolidated invoice',
    description:
      'Attachments are uploaded first with POST /files and referenced in file_ids. The document number is the ' +
      'recommended Idempotency-Key.',
    tag: TAG_DOCUMENTS,
    scope: DOCUMENT_OPERATIONS.create.scope,
    idempotencyKey: DOCUMENT_OPERATIONS.create.idempotencyKey,
    body: 'CreateDocumentRequest',
    success: [
      { status: 201, description: 'The new document (pending, unpaid, not_ready).', schema: 'Document' },
    ],
    errors: [409],
    gap: 'G7',
  },
  {
    method: 'get',
    path: DOCUMENT_OPERATIONS.get.path,
    operationId: 'getSupplierDocument',
    summary: 'Read a document',
    tag: TAG_DOCUMENTS,
    scope: DOCUMENT_OPERATIONS.get.scope,
    parameters: [documentId, paramRef('expand')],
    success: [{ status: 200, description: 'The document.', schema: 'Document' }],
    errors: [404],
    gap: 'G8',
  },
  {
    method: 'put',
    path: '/supplier/products/{sku}',
    operationId: 'upsertProduct',
    summary: 'Create or replace a product',
    tag: TAG_CATALOG,
    scope: 'supplier.catalog:write',
    parameters: [sku],
    body: 'PutProductRequest',
    success: [
      { status: 200, description: 'The product existed and was updated.', schema: 'Product' },
      { status: 201, description: 'The product was created.', schema: 'Product' },
    ],
  },
  {
    method: 'delete',
    path: '/supplier/products/{sku}',
    operationId: 'deleteProduct',
    summary: 'Delete a product (soft delete)',
    tag: TAG_CATALOG,
    scope: 'supplier.catalog:write',
    parameters: [sku],
    success: [{ status: 204, description: 'Deleted.' }],
    errors: [404],
  },
  {
    method: 'post',
    path: '/supplier/products/batch',
    operationId: 'upsertProducts',
    summary: `Create or replace up to ${LIMITS.batch.products} products`,
    description:
      'Answers 422 with the batch response as the body when every item failed; an unknown image_file_id fails ' +
      'its item with code not_found.',
    tag: TAG_CATALOG,
    scope: 'supplier.catalog:write',
    body: 'ProductBatchRequest',
    success: [{ status: 200, description: 'Per-item results.', schema: 'BatchResponse' }],
    errorOverrides: {
      422: problemWith(
        'Every item failed: a validation_error problem that also carries the batch results.',
        'BatchResponse',
      ),
    },
  },
  {
    method: 'post',
    path: '/supplier/products/{sku}/availability',
    operationId: 'setProductAvailability',
    summary: 'Mark a product available or unavailable',
    tag: TAG_CATALOG,
    scope: 'supplier.catalog:write',
    parameters: [sku],
    body: 'SetAvailabilityRequest',
    success: [
      { status: 200, description: 'The product with available and available_until.', schema: 'Product' },
    ],
    errors: [404],
  },
  {
    method: 'get',
    path: '/supplier/price-lists',
    operationId: 'listPriceLists',
    summary: 'List price lists',
    tag: TAG_CATALOG,
    scope: 'supplier.catalog:write',
    parameters: paging,
    success: [{ status: 200, description: 'A page of price lists.', schema: 'PriceListPage' }],
  },
  {
    method: 'put',
    path: '/supplier/price-lists/{price_list_id}/prices',
    operationId: 'putPrices',
    summary: `Set up to ${LIMITS.batch.priceEntries} prices of a price list`,
    tag: TAG_CATALOG,
    scope: 'supplier.catalog:write',
    parameters: [priceListId],
    body: 'PutPricesRequest',
    success: [{ status: 200, description: 'Per-item results.', schema: 'BatchResponse' }],
    errors: [404],
  },
  {
    method: 'post',
    path: '/supplier/price-lists/{price_list_id}/buyers',
    operationId: 'assignPriceList',
    summary: 'Assign a price list to a buyer',
    tag: TAG_CATALOG,
    scope: 'supplier.catalog:write',
    parameters: [priceListId],
    body: 'AssignPriceListBuyerRequest',
    success: [{ status: 204, description: 'Assigned.' }],
    errors: [404],
  },
  {
    method: 'delete',
    path: '/supplier/price-lists/{price_list_id}/buyers/{buyer_id}',
    operationId: 'unassignPriceList',
    summary: 'Remove a buyer from a price list',
    tag: TAG_CATALOG,
    scope: 'supplier.catalog:write',
    parameters: [priceListId, buyerId],
    success: [{ status: 204, description: 'Removed.' }],
    errors: [404],
  },
];

/** Query of GET /supplier/documents, shared with the buyer's GET /documents (G15). */
export function documentListParameters() {
  return [
    ...paging,
    paramRef('updated_since'),
    paramRef('from'),
    paramRef('to'),
    queryParam('type', commaList(DOCUMENT_TYPES), 'Comma-separated document types.'),
    queryParam('buyer_status', commaList(BUYER_STATUSES), 'Comma-separated buyer statuses.'),
    paramRef('expand'),
  ];
}
