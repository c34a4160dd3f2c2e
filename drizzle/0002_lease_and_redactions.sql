CREATE TABLE `collector_lease` (
	`cluster` text PRIMARY KEY NOT NULL,
	`owner` text NOT NULL,
	`acquired_at` integer NOT NULL,
	`heartbeat_at` integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE `poll` ADD `redactions` integer;