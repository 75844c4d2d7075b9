-- Preflight at project creation (issue 21): each item's result as JSON {ok, errors, warnings,
-- problems} (NULL: the item names no design, or its design could not be checked), and the
-- project's worst verdict over its items ('ok' | 'warnings' | 'errors'; NULL: no item checked),
-- which the storefront list filters by (`?preflight=`), newest first like the other filters.
ALTER TABLE `project_items` ADD `preflight` text;--> statement-breakpoint
ALTER TABLE `projects` ADD `preflight` text;--> statement-breakpoint
CREATE INDEX `projects_preflight` ON `projects` (`tenant_id`,`preflight`,`created`);
