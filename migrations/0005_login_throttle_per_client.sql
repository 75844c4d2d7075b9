-- Sign-in lockout per account AND client (issue 18, item 9): five wrong passwords from anywhere
-- used to refuse the right one from everyone. `client` is the client's rate-limit key
-- (src/identity/login-throttle.ts: its IP, an IPv6 /64); '' is the account-wide count, which
-- only slows attempts down and never refuses them. Existing rows become account-wide counts.
CREATE TABLE `login_throttle_new` (
	`tenant_id` integer NOT NULL,
	`email` text NOT NULL,
	`client` text DEFAULT '' NOT NULL,
	`failures` integer DEFAULT 0 NOT NULL,
	`last_failure_at` integer NOT NULL,
	PRIMARY KEY(`tenant_id`, `email`, `client`)
);--> statement-breakpoint
INSERT INTO `login_throttle_new` (`tenant_id`, `email`, `client`, `failures`, `last_failure_at`)
	SELECT `tenant_id`, `email`, '', `failures`, `last_failure_at` FROM `login_throttle`;--> statement-breakpoint
DROP TABLE `login_throttle`;--> statement-breakpoint
ALTER TABLE `login_throttle_new` RENAME TO `login_throttle`;
