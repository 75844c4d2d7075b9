-- A tenant may let its pipelines call the platform's own origins (docs/security.md, self calls):
-- off by default; the hop-depth limit on project creation applies either way.
ALTER TABLE `tenant_settings` ADD `allow_self_calls` integer NOT NULL DEFAULT 0;
