CREATE TABLE `anonymous_tokens` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`tenant_id` integer NOT NULL,
	`kind` text NOT NULL,
	`target_id` text NOT NULL,
	`created` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `anonymous_tokens_target` ON `anonymous_tokens` (`tenant_id`,`kind`,`target_id`);--> statement-breakpoint
CREATE TABLE `artifacts` (
	`tenant_id` integer NOT NULL,
	`id` text NOT NULL,
	`owner_id` text DEFAULT '' NOT NULL,
	`job_id` text,
	`project_id` integer,
	`project_item_id` integer,
	`group_name` text,
	`alias` text,
	`type` text NOT NULL,
	`name` text NOT NULL,
	`format` text,
	`size` integer DEFAULT 0 NOT NULL,
	`description` text,
	`blob_sha` text,
	`r2_key` text,
	`custom_fields` text DEFAULT '{}' NOT NULL,
	`anonymous_access` integer DEFAULT false NOT NULL,
	`expires_at` integer,
	`created` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`last_modified` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	PRIMARY KEY(`tenant_id`, `id`)
);
--> statement-breakpoint
CREATE INDEX `artifacts_group` ON `artifacts` (`tenant_id`,`group_name`);--> statement-breakpoint
CREATE INDEX `artifacts_job` ON `artifacts` (`tenant_id`,`job_id`);--> statement-breakpoint
CREATE INDEX `artifacts_project` ON `artifacts` (`tenant_id`,`project_id`);--> statement-breakpoint
CREATE INDEX `artifacts_expiry` ON `artifacts` (`tenant_id`,`type`,`expires_at`);--> statement-breakpoint
CREATE INDEX `artifacts_blob` ON `artifacts` (`tenant_id`,`blob_sha`);--> statement-breakpoint
CREATE TABLE `assets` (
	`tenant_id` integer NOT NULL,
	`id` text NOT NULL,
	`type` text NOT NULL,
	`owner_id` text DEFAULT '' NOT NULL,
	`folder_id` text DEFAULT '' NOT NULL,
	`name` text NOT NULL,
	`blob_sha` text,
	`size` integer DEFAULT 0 NOT NULL,
	`mime_type` text,
	`format` text,
	`custom_fields` text DEFAULT '{}' NOT NULL,
	`metadata` text DEFAULT '{}' NOT NULL,
	`retention_policy` text DEFAULT 'Unknown' NOT NULL,
	`design_type` text,
	`has_problems` integer DEFAULT false NOT NULL,
	`mockup_type` text,
	`link_source_id` text,
	`postscript_name` text,
	`namespace` text,
	`source_id` text,
	`resource_type` text,
	`anonymous_access` integer DEFAULT false NOT NULL,
	`created` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`last_modified` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	PRIMARY KEY(`tenant_id`, `id`)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `assets_name_in_folder` ON `assets` (`tenant_id`,`type`,`owner_id`,`folder_id`,"name" COLLATE NOCASE) WHERE "assets"."type" <> 'resource';--> statement-breakpoint
CREATE INDEX `assets_list` ON `assets` (`tenant_id`,`type`,`owner_id`,`folder_id`,`name`);--> statement-breakpoint
CREATE INDEX `assets_list_modified` ON `assets` (`tenant_id`,`type`,`owner_id`,`last_modified`);--> statement-breakpoint
CREATE INDEX `assets_blob` ON `assets` (`tenant_id`,`blob_sha`);--> statement-breakpoint
CREATE INDEX `assets_retention` ON `assets` (`tenant_id`,`retention_policy`,`last_modified`);--> statement-breakpoint
CREATE INDEX `assets_namespace` ON `assets` (`tenant_id`,`namespace`,`owner_id`);--> statement-breakpoint
CREATE INDEX `assets_source` ON `assets` (`tenant_id`,`source_id`);--> statement-breakpoint
CREATE INDEX `assets_font` ON `assets` (`tenant_id`,`type`,`postscript_name`);--> statement-breakpoint
CREATE INDEX `assets_link_source` ON `assets` (`tenant_id`,`link_source_id`);--> statement-breakpoint
CREATE TABLE `blobs` (
	`tenant_id` integer NOT NULL,
	`sha256` text NOT NULL,
	`size` integer NOT NULL,
	`content_type` text,
	`refcount` integer DEFAULT 0 NOT NULL,
	`created` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`last_modified` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	PRIMARY KEY(`tenant_id`, `sha256`)
);
--> statement-breakpoint
CREATE INDEX `blobs_unreferenced` ON `blobs` (`tenant_id`,`refcount`,`last_modified`);--> statement-breakpoint
CREATE TABLE `design_connections` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`tenant_id` integer NOT NULL,
	`product_version_id` integer NOT NULL,
	`design_id` text NOT NULL,
	`design_group` text,
	`options` text DEFAULT '[]' NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `design_connections_tenant` ON `design_connections` (`tenant_id`,`id`);--> statement-breakpoint
CREATE INDEX `design_connections_version` ON `design_connections` (`tenant_id`,`product_version_id`);--> statement-breakpoint
CREATE INDEX `design_connections_design` ON `design_connections` (`tenant_id`,`design_id`);--> statement-breakpoint
CREATE TABLE `folders` (
	`tenant_id` integer NOT NULL,
	`id` text NOT NULL,
	`type` text NOT NULL,
	`owner_id` text DEFAULT '' NOT NULL,
	`parent_id` text DEFAULT '' NOT NULL,
	`name` text NOT NULL,
	`path` text NOT NULL,
	`depth` integer NOT NULL,
	`created` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`last_modified` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	PRIMARY KEY(`tenant_id`, `id`)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `folders_name_in_parent` ON `folders` (`tenant_id`,`type`,`owner_id`,`parent_id`,"name" COLLATE NOCASE);--> statement-breakpoint
CREATE UNIQUE INDEX `folders_path` ON `folders` (`tenant_id`,`type`,`owner_id`,"path" COLLATE NOCASE);--> statement-breakpoint
CREATE TABLE `jobs` (
	`tenant_id` integer NOT NULL,
	`id` text NOT NULL,
	`project_id` integer,
	`project_item_id` integer,
	`kind` text DEFAULT 'standalone' NOT NULL,
	`do_name` text NOT NULL,
	`status` text DEFAULT 'New' NOT NULL,
	`status_description` text,
	`owner_id` text,
	`project_order_id` text,
	`pipeline_id` integer,
	`body_hash` text,
	`created` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`started` integer,
	`finished` integer,
	`last_activity` integer,
	`last_modified` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	PRIMARY KEY(`tenant_id`, `id`)
);
--> statement-breakpoint
CREATE INDEX `jobs_created` ON `jobs` (`tenant_id`,`created`);--> statement-breakpoint
CREATE INDEX `jobs_project` ON `jobs` (`tenant_id`,`project_id`,`created`);--> statement-breakpoint
CREATE INDEX `jobs_status` ON `jobs` (`tenant_id`,`status`,`last_activity`);--> statement-breakpoint
CREATE INDEX `jobs_order` ON `jobs` (`tenant_id`,`project_order_id`);--> statement-breakpoint
CREATE INDEX `jobs_owner` ON `jobs` (`tenant_id`,`owner_id`);--> statement-breakpoint
CREATE TABLE `mockup_connections` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`tenant_id` integer NOT NULL,
	`product_version_id` integer NOT NULL,
	`mockup_id` text NOT NULL,
	`options` text DEFAULT '[]' NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `mockup_connections_tenant` ON `mockup_connections` (`tenant_id`,`id`);--> statement-breakpoint
CREATE INDEX `mockup_connections_version` ON `mockup_connections` (`tenant_id`,`product_version_id`);--> statement-breakpoint
CREATE INDEX `mockup_connections_mockup` ON `mockup_connections` (`tenant_id`,`mockup_id`);--> statement-breakpoint
CREATE TABLE `option_values` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`tenant_id` integer NOT NULL,
	`product_version_id` integer NOT NULL,
	`option_uid` text NOT NULL,
	`uid` text NOT NULL,
	`title` text NOT NULL,
	`value` text,
	`description` text,
	`sort_index` integer DEFAULT 0 NOT NULL,
	`is_default` integer DEFAULT false NOT NULL,
	`tag` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `option_values_tenant` ON `option_values` (`tenant_id`,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `option_values_uid` ON `option_values` (`tenant_id`,`product_version_id`,`uid`);--> statement-breakpoint
CREATE INDEX `option_values_option` ON `option_values` (`tenant_id`,`product_version_id`,`option_uid`);--> statement-breakpoint
CREATE TABLE `order_data` (
	`tenant_id` integer NOT NULL,
	`project_id` integer NOT NULL,
	`item_id` integer DEFAULT 0 NOT NULL,
	`key` text NOT NULL,
	`value` text NOT NULL,
	`type` text DEFAULT 'PlainText' NOT NULL,
	`last_modified` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	PRIMARY KEY(`tenant_id`, `project_id`, `item_id`, `key`)
);
--> statement-breakpoint
CREATE TABLE `personalization_workflows` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`tenant_id` integer NOT NULL,
	`name` text DEFAULT '' NOT NULL,
	`content` text DEFAULT '' NOT NULL,
	`workflow_type` text NOT NULL,
	`created` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`last_modified` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `personalization_workflows_tenant` ON `personalization_workflows` (`tenant_id`,`id`);--> statement-breakpoint
CREATE TABLE `platform_guard` (
	`id` integer PRIMARY KEY NOT NULL,
	`ok` integer NOT NULL,
	CONSTRAINT "platform_guard_ok" CHECK(ok <> 0)
);
--> statement-breakpoint
CREATE TABLE `processing_pipelines` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`tenant_id` integer NOT NULL,
	`name` text NOT NULL,
	`raw_content` text NOT NULL,
	`created` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`last_modified` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `processing_pipelines_tenant` ON `processing_pipelines` (`tenant_id`,`id`);--> statement-breakpoint
CREATE TABLE `product_bundles` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`tenant_id` integer NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`items` text DEFAULT '[]' NOT NULL,
	`personalization_workflow_id` integer,
	`processing_pipeline_id` integer,
	`created` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`last_modified` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `product_bundles_tenant` ON `product_bundles` (`tenant_id`,`id`);--> statement-breakpoint
CREATE TABLE `product_links` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`tenant_id` integer NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`product_id` integer NOT NULL,
	`product_version_id` integer,
	`personalization_workflow_id` integer,
	`processing_pipeline_id` integer,
	`created` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`last_modified` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `product_links_tenant` ON `product_links` (`tenant_id`,`id`);--> statement-breakpoint
CREATE INDEX `product_links_product` ON `product_links` (`tenant_id`,`product_id`);--> statement-breakpoint
CREATE TABLE `product_options` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`tenant_id` integer NOT NULL,
	`product_version_id` integer NOT NULL,
	`product_id` integer NOT NULL,
	`uid` text NOT NULL,
	`type` text DEFAULT 'Simple' NOT NULL,
	`title` text NOT NULL,
	`traits` text DEFAULT '[]' NOT NULL,
	`sort_index` integer DEFAULT 0 NOT NULL,
	`tag` text,
	`use_for_design_binding` integer DEFAULT false NOT NULL,
	`use_for_mockup_binding` integer DEFAULT false NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `product_options_tenant` ON `product_options` (`tenant_id`,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `product_options_uid` ON `product_options` (`tenant_id`,`product_version_id`,`uid`);--> statement-breakpoint
CREATE TABLE `product_references` (
	`tenant_id` integer NOT NULL,
	`storefront_id` integer NOT NULL,
	`product_reference` text NOT NULL,
	`product_reference_type` text NOT NULL,
	`product_reference_name` text,
	`product_specification_id` integer,
	`product_id` integer,
	`product_version_id` integer,
	`product_link_id` integer,
	`product_bundle_id` integer,
	`created` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	PRIMARY KEY(`tenant_id`, `storefront_id`, `product_reference`)
);
--> statement-breakpoint
CREATE INDEX `product_references_product` ON `product_references` (`tenant_id`,`product_id`);--> statement-breakpoint
CREATE INDEX `product_references_link` ON `product_references` (`tenant_id`,`product_link_id`);--> statement-breakpoint
CREATE INDEX `product_references_specification` ON `product_references` (`tenant_id`,`product_specification_id`);--> statement-breakpoint
CREATE INDEX `product_references_bundle` ON `product_references` (`tenant_id`,`product_bundle_id`);--> statement-breakpoint
CREATE TABLE `product_specifications` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`tenant_id` integer NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`product_attributes` text DEFAULT '[]' NOT NULL,
	`personalization_workflow_id` integer,
	`processing_pipeline_id` integer,
	`created` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`last_modified` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `product_specifications_tenant` ON `product_specifications` (`tenant_id`,`id`);--> statement-breakpoint
CREATE TABLE `product_versions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`tenant_id` integer NOT NULL,
	`product_id` integer NOT NULL,
	`created` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `product_versions_tenant` ON `product_versions` (`tenant_id`,`id`);--> statement-breakpoint
CREATE INDEX `product_versions_product` ON `product_versions` (`tenant_id`,`product_id`);--> statement-breakpoint
CREATE TABLE `products` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`tenant_id` integer NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`image_resource_id` text,
	`tags` text DEFAULT '[]' NOT NULL,
	`custom_fields` text DEFAULT '{}' NOT NULL,
	`personalization_workflow_id` integer,
	`processing_pipeline_id` integer,
	`current_version_id` integer,
	`created` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`last_modified` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `products_tenant` ON `products` (`tenant_id`,`id`);--> statement-breakpoint
CREATE INDEX `products_name` ON `products` (`tenant_id`,`name`);--> statement-breakpoint
CREATE INDEX `products_workflow` ON `products` (`tenant_id`,`personalization_workflow_id`);--> statement-breakpoint
CREATE INDEX `products_pipeline` ON `products` (`tenant_id`,`processing_pipeline_id`);--> statement-breakpoint
CREATE TABLE `project_items` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`tenant_id` integer NOT NULL,
	`project_id` integer NOT NULL,
	`sort_index` integer DEFAULT 0 NOT NULL,
	`name` text,
	`group_id` text,
	`quantity` integer DEFAULT 1 NOT NULL,
	`order_line_item_id` text,
	`order_line_item_index` integer,
	`product_reference` text,
	`product_specifier` text,
	`product_id` integer,
	`product_version_id` integer,
	`product_variant_id` integer,
	`product_link_id` integer,
	`product_specification_id` integer,
	`fields` text DEFAULT '{}' NOT NULL,
	`hidden` text DEFAULT '{}' NOT NULL,
	`design_ids` text DEFAULT '[]' NOT NULL,
	`sku` text,
	`resources` text DEFAULT '[]' NOT NULL,
	`processing_pipeline_id` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `project_items_tenant` ON `project_items` (`tenant_id`,`id`);--> statement-breakpoint
CREATE INDEX `project_items_project` ON `project_items` (`tenant_id`,`project_id`,`sort_index`);--> statement-breakpoint
CREATE INDEX `project_items_version` ON `project_items` (`tenant_id`,`product_version_id`);--> statement-breakpoint
CREATE TABLE `project_statuses` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`tenant_id` integer NOT NULL,
	`code` integer NOT NULL,
	`color` text,
	`display_name` text DEFAULT '' NOT NULL,
	`is_initial` integer DEFAULT false NOT NULL,
	`is_final` integer DEFAULT false NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `project_statuses_tenant` ON `project_statuses` (`tenant_id`,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `project_statuses_code` ON `project_statuses` (`tenant_id`,`code`);--> statement-breakpoint
CREATE UNIQUE INDEX `project_statuses_initial` ON `project_statuses` (`tenant_id`) WHERE "project_statuses"."is_initial" = 1;--> statement-breakpoint
CREATE TABLE `project_transitions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`tenant_id` integer NOT NULL,
	`name` text NOT NULL,
	`display_name` text DEFAULT '' NOT NULL,
	`start_status` integer NOT NULL,
	`result_status` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `project_transitions_tenant` ON `project_transitions` (`tenant_id`,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `project_transitions_name` ON `project_transitions` (`tenant_id`,`start_status`,`name`);--> statement-breakpoint
CREATE INDEX `project_transitions_result` ON `project_transitions` (`tenant_id`,`result_status`);--> statement-breakpoint
CREATE TABLE `projects` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`tenant_id` integer NOT NULL,
	`storefront_id` integer NOT NULL,
	`product_reference` text,
	`owner_id` text NOT NULL,
	`name` text,
	`description` text,
	`order_id` text,
	`order_url` text,
	`order_number` integer,
	`order_name` text,
	`order_line_item_id` text,
	`order_line_item_index` integer,
	`customer_id` text,
	`customer_name` text,
	`status` integer DEFAULT 0 NOT NULL,
	`processing_status` text DEFAULT 'Pending' NOT NULL,
	`processing_triggered_at` integer,
	`processing` text DEFAULT '{}' NOT NULL,
	`create_nonce` text,
	`created` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`last_modified` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `projects_tenant` ON `projects` (`tenant_id`,`id`);--> statement-breakpoint
CREATE INDEX `projects_processing` ON `projects` (`tenant_id`,`processing_status`,`created`);--> statement-breakpoint
CREATE INDEX `projects_created` ON `projects` (`tenant_id`,`created`);--> statement-breakpoint
CREATE INDEX `projects_owner` ON `projects` (`tenant_id`,`owner_id`,`created`);--> statement-breakpoint
CREATE INDEX `projects_storefront` ON `projects` (`tenant_id`,`storefront_id`,`created`);--> statement-breakpoint
CREATE INDEX `projects_status` ON `projects` (`tenant_id`,`status`,`created`);--> statement-breakpoint
CREATE INDEX `projects_order` ON `projects` (`tenant_id`,`order_id`);--> statement-breakpoint
CREATE INDEX `projects_nonce` ON `projects` (`tenant_id`,`create_nonce`);--> statement-breakpoint
CREATE INDEX `projects_triggered` ON `projects` (`tenant_id`,`processing_triggered_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `projects_order_line_id` ON `projects` (`tenant_id`,`storefront_id`,`order_id`,`order_line_item_id`) WHERE "projects"."order_id" IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `projects_order_line_index` ON `projects` (`tenant_id`,`storefront_id`,`order_id`,`order_line_item_index`) WHERE "projects"."order_id" IS NOT NULL;--> statement-breakpoint
CREATE TABLE `storefront_users` (
	`tenant_id` integer NOT NULL,
	`storefront_id` integer NOT NULL,
	`user_id` text NOT NULL,
	`is_anonymous` integer DEFAULT false NOT NULL,
	`created` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	PRIMARY KEY(`tenant_id`, `storefront_id`, `user_id`)
);
--> statement-breakpoint
CREATE INDEX `storefront_users_user` ON `storefront_users` (`tenant_id`,`user_id`);--> statement-breakpoint
CREATE TABLE `storefronts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`tenant_id` integer NOT NULL,
	`name` text NOT NULL,
	`type` text DEFAULT 'Custom' NOT NULL,
	`status` text DEFAULT 'Dev' NOT NULL,
	`created` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `storefronts_tenant` ON `storefronts` (`tenant_id`,`id`);--> statement-breakpoint
CREATE TABLE `tenant_secrets` (
	`tenant_id` integer NOT NULL,
	`name_key` text NOT NULL,
	`name` text NOT NULL,
	`iv` text NOT NULL,
	`ciphertext` text NOT NULL,
	`created` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`last_modified` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	PRIMARY KEY(`tenant_id`, `name_key`)
);
--> statement-breakpoint
CREATE TABLE `tenant_settings` (
	`tenant_id` integer PRIMARY KEY NOT NULL,
	`start_processing_on_status` integer,
	`enable_assets_retention` integer DEFAULT false NOT NULL,
	`assets_retention_period_in_days` integer DEFAULT 30 NOT NULL,
	`last_modified` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL
);
--> statement-breakpoint
CREATE TABLE `variants` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`tenant_id` integer NOT NULL,
	`product_version_id` integer NOT NULL,
	`product_id` integer NOT NULL,
	`uid` text NOT NULL,
	`option_value_uids` text DEFAULT '[]' NOT NULL,
	`is_available` integer DEFAULT true NOT NULL,
	`price` real,
	`weight` real,
	`sort_index` integer DEFAULT 0 NOT NULL,
	`storefront_product_variant_id` text,
	`sku` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `variants_tenant` ON `variants` (`tenant_id`,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `variants_uid` ON `variants` (`tenant_id`,`product_version_id`,`uid`);--> statement-breakpoint
CREATE INDEX `variants_sku` ON `variants` (`tenant_id`,`sku`);