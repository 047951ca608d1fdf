export {
  DEFAULT_TOLERANCE_SECONDS,
  computeSignature,
  parseSignatureHeader,
  signatureHeader,
  verifySignature,
} from './signature.js';
export type { ParsedSignatureHeader, SignatureFailure, SignatureResult, VerifyOptions } from './signature.js';
export { readRawBody } from './body.js';
export type { BodyResult } from './body.js';
export { parseEnvelope } from './envelope.js';
export type { EnvelopeFailure, EnvelopeResult, WebhookEvent } from './envelope.js';
export type { InboxRow, InboxStore } from './inbox.js';
export { stateInbox } from './state-inbox.js';
export { InboxGroupCommitter } from './group-commit.js';
export { createWebhookReceiver, DEFAULT_MAX_BODY_BYTES, SIGNATURE_HEADER } from './receiver.js';
export type { RejectReason, WebhookObserver, WebhookReceiver, WebhookReceiverOptions } from './receiver.js';
export { DEFAULT_DISPATCH_INTERVAL_MS, WebhookDispatcher } from './dispatcher.js';
export type {
  DispatchSummary,
  EventJobMapping,
  JobTriggerCause,
  WebhookDispatcherOptions,
} from './dispatcher.js';
export { WebhookSecretStore } from './secrets.js';
export type { KeyValue, StoredWebhookSecret } from './secrets.js';
export { registerWebhook, recoverWebhookDeliveries, testWebhook } from './commands.js';
export type {
  RecoverOptions,
  RecoverResult,
  RegisterWebhookOptions,
  RegisterWebhookResult,
} from './commands.js';
export type { WebhookApi, WebhookDelivery, WebhookEndpoint, WebhookEndpointInput } from './api.js';
export { WalSyncedInbox } from './wal-synced-inbox.js';
export { openDaemonInbox } from './daemon-inbox.js';
export type { ClosableInbox } from './daemon-inbox.js';
export type { WalSyncedInboxOptions } from './wal-synced-inbox.js';
export { webhookApiFromClient } from './client-adapter.js';
