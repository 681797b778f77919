export {
  ContactSyncClient,
  chunkContacts,
  MAX_BATCH_BYTES,
  MAX_BATCH_ROWS,
  type CallOptions,
  type ContactExport,
  type EventsOptions,
  type ClientOptions,
  type SyncOptions,
  type SyncProgress,
  type SyncRequestFailure,
  type SyncResult,
  type SyncRow,
  type UpsertOptions,
  type UpsertResult,
} from './client';
export { ContactSyncError, type ContactSyncErrorCode } from './errors';
export { retryAfterMs, type RetryOptions, type TransportStats } from './transport';
export type * from './types';
export type { components, paths } from './generated/openapi';
export { verifyWebhook, WebhookVerificationError, type WebhookEvent } from './webhooks';
export {
  buildImportRequest,
  contactsToNdjson,
  ImportFailedError,
  parseNdjsonLines,
  type ImportFormat,
  type ImportOptions,
  type ImportResultLine,
  type ImportRowStatus,
  type ImportSource,
  type ImportStatus,
  type ImportView,
} from './imports';
