-- Colour profiles (ICC) of a tenant (src/platform/colour-profiles, docs/colour.md). The bytes live
-- in R2 at p/<tenant>/color-profiles/<id>.icc; names are unique per tenant ignoring case
-- (name_key = lower(name)), as pipelines and tenant settings name a profile, not its id.
CREATE TABLE `color_profiles` (
	`tenant_id` integer NOT NULL,
	`id` text NOT NULL,
	`name` text NOT NULL,
	`name_key` text NOT NULL,
	`color_space` text NOT NULL CHECK (`color_space` IN ('Rgb', 'Cmyk', 'Grayscale')),
	`description` text NOT NULL,
	`size` integer NOT NULL,
	`created` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	PRIMARY KEY (`tenant_id`, `id`)
);
CREATE UNIQUE INDEX `color_profiles_name` ON `color_profiles` (`tenant_id`, `name_key`);

-- A tenant's default output profiles, by colour-profile name (null: the shipped default).
ALTER TABLE `tenant_settings` ADD `default_cmyk_color_profile` text;
ALTER TABLE `tenant_settings` ADD `default_rgb_color_profile` text;
ALTER TABLE `tenant_settings` ADD `default_grayscale_color_profile` text;
