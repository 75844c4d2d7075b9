-- Folder listings (issue 9): name order needs no sort, and the customFields filter and the total
-- read this covering index alone instead of 10,000 table rows. Replaces assets_list (same prefix).
DROP INDEX `assets_list`;--> statement-breakpoint
CREATE INDEX `assets_list_by_name` ON `assets` (`tenant_id`,`type`,`owner_id`,`folder_id`,"name" COLLATE NOCASE,`id`,`custom_fields`);