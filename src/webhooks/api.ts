/** The part of the API client the webhook commands use (contract 4.16); the CLI adapts the real client to it. */

export interface WebhookEndpoint {
  id: string;
  url: string;
  events: readonly string[];
  status: string;
  description?: string | null;
  /** Only in the create response. */
  secret?: string;
}

export interface WebhookDelivery {
  id: string;
  event_id: string;
  event_type: string;
  attempt: number;
  status: string;
  response_status?: number | null;
  /** The start of the endpoint's answer (up to 500 characters). */
  response_snippet?: string | null;
  error?: string | null;
  attempted_at?: string;
}

export interface WebhookEndpointInput {
  url: string;
  events: readonly string[];
  description?: string;
}

export interface WebhookApi {
  listWebhooks(): Promise<readonly WebhookEndpoint[]>;
  /**
   * With an idempotency key, a second create with the same key (within the API's replay window, 24 h) answers as the
   * first did, the secret included, instead of creating another endpoint.
   */
  createWebhook(body: WebhookEndpointInput, options?: { idempotencyKey?: string }): Promise<WebhookEndpoint>;
  updateWebhook(
    id: string,
    body: Partial<WebhookEndpointInput> & { status?: 'active' | 'disabled' },
  ): Promise<WebhookEndpoint>;
  /** With an idempotency key, a second ping with the same key answers as the first did instead of sending another. */
  testWebhook(id: string, options?: { idempotencyKey?: string }): Promise<WebhookDelivery>;
  /** Every delivery attempt of the endpoint, all pages. */
  listDeliveries(
    id: string,
    query?: { status?: 'pending' | 'succeeded' | 'failed' },
  ): AsyncIterable<WebhookDelivery>;
  redeliver(id: string, deliveryId: string): Promise<void>;
}
