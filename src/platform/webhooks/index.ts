/** Webhooks (docs/webhooks.md): endpoints, events, the per-tenant outbox that delivers them. */
export { EVENT_TYPES, emit, emitJobSettled, type EventType } from './events';
export { WebhookOutbox } from './outbox';
export * from './service';
