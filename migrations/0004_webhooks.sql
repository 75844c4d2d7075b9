-- Webhook endpoints of a tenant (src/platform/webhooks/store.ts, docs/webhooks.md). The signing
-- secret is sealed (AES-GCM, key from KEY_ENCRYPTION_SECRET); after a rotation the previous one
-- stays valid until previous_expires. Deliveries and their attempts live in the tenant's
-- WebhookOutbox Durable Object, not here.
CREATE TABLE `webhook_endpoints` (
	`tenant_id` integer NOT NULL,
	`id` text NOT NULL,
	`url` text NOT NULL,
	`events` text NOT NULL,
	`description` text,
	`secret` text NOT NULL,
	`previous_secret` text,
	`previous_expires` integer,
	`created` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`last_modified` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	PRIMARY KEY (`tenant_id`, `id`)
);
