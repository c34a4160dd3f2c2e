CREATE TABLE `maintenance_log` (
	`id` integer PRIMARY KEY NOT NULL,
	`at` integer NOT NULL,
	`cluster` text,
	`action` text NOT NULL,
	`cutoff` integer,
	`polls` integer NOT NULL,
	`samples` integer NOT NULL,
	`bytes` integer NOT NULL,
	`duration_ms` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `maintenance_log_by_time` ON `maintenance_log` (`at`);