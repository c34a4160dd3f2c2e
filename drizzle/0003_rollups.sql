CREATE TABLE `rollup_bucket` (
	`cluster_id` integer NOT NULL,
	`resolution` integer NOT NULL,
	`start` integer NOT NULL,
	`conn_polls` integer NOT NULL,
	`first_poll` integer,
	`last_poll` integer,
	PRIMARY KEY(`cluster_id`, `resolution`, `start`),
	FOREIGN KEY (`cluster_id`) REFERENCES `cluster`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `rollup_conn` (
	`cluster_id` integer NOT NULL,
	`resolution` integer NOT NULL,
	`start` integer NOT NULL,
	`group_id` integer NOT NULL,
	`open_min` integer NOT NULL,
	`open_max` integer NOT NULL,
	`open_last` integer NOT NULL,
	`open_sum` integer NOT NULL,
	`opened` integer NOT NULL,
	`closed` integer NOT NULL,
	`auth_failures` integer NOT NULL,
	`resets` integer NOT NULL,
	`produce_bytes` text NOT NULL,
	`produce_batches` text NOT NULL,
	`fetch_bytes` text NOT NULL,
	`requests` text NOT NULL,
	PRIMARY KEY(`cluster_id`, `resolution`, `start`, `group_id`),
	FOREIGN KEY (`cluster_id`) REFERENCES `cluster`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`group_id`) REFERENCES `rollup_group`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `rollup_event` (
	`cluster_id` integer NOT NULL,
	`kind` text NOT NULL,
	`entity` text NOT NULL,
	`start` integer NOT NULL,
	`end` integer,
	`body` text NOT NULL,
	PRIMARY KEY(`cluster_id`, `kind`, `entity`, `start`),
	FOREIGN KEY (`cluster_id`) REFERENCES `cluster`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `rollup_event_by_time` ON `rollup_event` (`cluster_id`,`start`);--> statement-breakpoint
CREATE TABLE `rollup_group` (
	`id` integer PRIMARY KEY NOT NULL,
	`cluster_id` integer NOT NULL,
	`node_id` integer NOT NULL,
	`listener` text NOT NULL,
	`principal` text NOT NULL,
	`client_id` text NOT NULL,
	`software` text NOT NULL,
	FOREIGN KEY (`cluster_id`) REFERENCES `cluster`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `rollup_group_by_key` ON `rollup_group` (`cluster_id`,`node_id`,`listener`,`principal`,`client_id`,`software`);--> statement-breakpoint
CREATE TABLE `rollup_iceberg` (
	`cluster_id` integer NOT NULL,
	`resolution` integer NOT NULL,
	`start` integer NOT NULL,
	`topic` text NOT NULL,
	`lag_min` integer NOT NULL,
	`lag_max` integer NOT NULL,
	`lag_last` integer NOT NULL,
	`partitions` integer NOT NULL,
	PRIMARY KEY(`cluster_id`, `resolution`, `start`, `topic`),
	FOREIGN KEY (`cluster_id`) REFERENCES `cluster`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `rollup_progress` (
	`cluster_id` integer NOT NULL,
	`resolution` integer NOT NULL,
	`until` integer NOT NULL,
	PRIMARY KEY(`cluster_id`, `resolution`),
	FOREIGN KEY (`cluster_id`) REFERENCES `cluster`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `rollup_shadow` (
	`cluster_id` integer NOT NULL,
	`resolution` integer NOT NULL,
	`start` integer NOT NULL,
	`link` text NOT NULL,
	`topic` text NOT NULL,
	`partition` integer NOT NULL,
	`lag_min` integer NOT NULL,
	`lag_max` integer NOT NULL,
	`lag_last` integer NOT NULL,
	`shadow_last` integer NOT NULL,
	`source_last` integer NOT NULL,
	`progress` integer NOT NULL,
	`state` text NOT NULL,
	PRIMARY KEY(`cluster_id`, `resolution`, `start`, `link`, `topic`, `partition`),
	FOREIGN KEY (`cluster_id`) REFERENCES `cluster`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `rollup_state` (
	`cluster_id` integer NOT NULL,
	`entity` text NOT NULL,
	`start` integer NOT NULL,
	`end` integer,
	`state` text NOT NULL,
	PRIMARY KEY(`cluster_id`, `entity`, `start`),
	FOREIGN KEY (`cluster_id`) REFERENCES `cluster`(`id`) ON UPDATE no action ON DELETE no action
);
