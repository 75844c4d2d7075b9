CREATE TABLE `apps` (
	`client_id` text PRIMARY KEY NOT NULL,
	`tenant_id` integer NOT NULL,
	`name` text NOT NULL,
	`auth_type` text NOT NULL,
	`secret_hash` text,
	`token_lifetime` integer DEFAULT 3600 NOT NULL,
	`permissions` text DEFAULT '{}' NOT NULL,
	`redirect_uris` text DEFAULT '[]' NOT NULL,
	`post_logout_redirect_uris` text DEFAULT '[]' NOT NULL,
	`cors_origins` text DEFAULT '[]' NOT NULL,
	`require_client_secret` integer NOT NULL,
	`require_pkce` integer NOT NULL,
	`created_at` integer DEFAULT (unixepoch()) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch()) NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `apps_tenant` ON `apps` (`tenant_id`);--> statement-breakpoint
CREATE TABLE `authorization_codes` (
	`code_hash` text PRIMARY KEY NOT NULL,
	`tenant_id` integer NOT NULL,
	`client_id` text NOT NULL,
	`user_id` text NOT NULL,
	`sid` text,
	`redirect_uri` text NOT NULL,
	`scope` text NOT NULL,
	`nonce` text,
	`code_challenge` text,
	`auth_time` integer NOT NULL,
	`created_at` integer DEFAULT (unixepoch()) NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	`grant_id` text
);
--> statement-breakpoint
CREATE TABLE `grants` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` integer NOT NULL,
	`client_id` text NOT NULL,
	`user_id` text NOT NULL,
	`sid` text,
	`scope` text NOT NULL,
	`auth_time` integer NOT NULL,
	`created_at` integer DEFAULT (unixepoch()) NOT NULL,
	`expires_at` integer NOT NULL,
	`revoked_at` integer
);
--> statement-breakpoint
CREATE INDEX `grants_client` ON `grants` (`client_id`);--> statement-breakpoint
CREATE INDEX `grants_user` ON `grants` (`user_id`);--> statement-breakpoint
CREATE TABLE `login_throttle` (
	`tenant_id` integer NOT NULL,
	`email` text NOT NULL,
	`failures` integer DEFAULT 0 NOT NULL,
	`last_failure_at` integer NOT NULL,
	PRIMARY KEY(`tenant_id`, `email`)
);
--> statement-breakpoint
CREATE TABLE `pending_authorizations` (
	`id` text PRIMARY KEY NOT NULL,
	`request` text NOT NULL,
	`csrf_token` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch()) NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `refresh_tokens` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`grant_id` text NOT NULL,
	`scope` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch()) NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	FOREIGN KEY (`grant_id`) REFERENCES `grants`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `refresh_tokens_grant` ON `refresh_tokens` (`grant_id`);--> statement-breakpoint
CREATE TABLE `revoked_jtis` (
	`jti` text PRIMARY KEY NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `sessions` (
	`id_hash` text PRIMARY KEY NOT NULL,
	`sid` text NOT NULL,
	`tenant_id` integer NOT NULL,
	`user_id` text NOT NULL,
	`auth_time` integer NOT NULL,
	`csrf_secret` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch()) NOT NULL,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `sessions_sid_unique` ON `sessions` (`sid`);--> statement-breakpoint
CREATE INDEX `sessions_user` ON `sessions` (`user_id`);--> statement-breakpoint
CREATE TABLE `signing_keys` (
	`kid` text PRIMARY KEY NOT NULL,
	`generation` integer NOT NULL,
	`alg` text NOT NULL,
	`public_jwk` text NOT NULL,
	`private_jwk_encrypted` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch()) NOT NULL,
	`activates_at` integer NOT NULL,
	`superseded_at` integer,
	`retires_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `signing_keys_generation_unique` ON `signing_keys` (`generation`);--> statement-breakpoint
CREATE TABLE `tenants` (
	`id` integer PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch()) NOT NULL
);
--> statement-breakpoint
CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` integer NOT NULL,
	`email` text NOT NULL,
	`name` text DEFAULT '' NOT NULL,
	`password_hash` text NOT NULL,
	`password_salt` text NOT NULL,
	`password_iterations` integer NOT NULL,
	`role` text NOT NULL,
	`disabled` integer DEFAULT false NOT NULL,
	`created_at` integer DEFAULT (unixepoch()) NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_tenant_email` ON `users` (`tenant_id`,`email`);