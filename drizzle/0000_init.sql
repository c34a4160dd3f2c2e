CREATE TABLE `cluster` (
	`id` integer PRIMARY KEY NOT NULL,
	`name` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `cluster_name_unique` ON `cluster` (`name`);--> statement-breakpoint
CREATE TABLE `conn_batch` (
	`id` integer PRIMARY KEY NOT NULL,
	`cluster_id` integer NOT NULL,
	`first_poll` integer NOT NULL,
	`last_poll` integer NOT NULL,
	`frames` integer NOT NULL,
	`sealed` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`cluster_id`) REFERENCES `cluster`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `conn_batch_by_cluster` ON `conn_batch` (`cluster_id`,`last_poll`);--> statement-breakpoint
CREATE TABLE `conn_entity` (
	`id` integer PRIMARY KEY NOT NULL,
	`cluster_id` integer NOT NULL,
	`uid` text NOT NULL,
	`node_id` integer NOT NULL,
	`shard_id` integer NOT NULL,
	`listener` integer NOT NULL,
	`source_ip` text NOT NULL,
	`source_port` integer NOT NULL,
	`tls` integer NOT NULL,
	`open_time` integer,
	`first_poll` integer NOT NULL,
	`last_poll` integer NOT NULL,
	`extra` text,
	`packed` blob NOT NULL,
	FOREIGN KEY (`cluster_id`) REFERENCES `cluster`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `conn_entity_by_uid` ON `conn_entity` (`cluster_id`,`uid`);--> statement-breakpoint
CREATE TABLE `conn_frame` (
	`poll` integer PRIMARY KEY NOT NULL,
	`batch` integer NOT NULL,
	`seq` integer NOT NULL,
	`rows` integer NOT NULL,
	`total_size` integer NOT NULL,
	`dup_uids` integer DEFAULT 0 NOT NULL,
	`versions` blob NOT NULL,
	`head` blob,
	FOREIGN KEY (`poll`) REFERENCES `poll`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`batch`) REFERENCES `conn_batch`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `conn_frame_by_batch` ON `conn_frame` (`batch`,`seq`);--> statement-breakpoint
CREATE TABLE `conn_version` (
	`id` integer PRIMARY KEY NOT NULL,
	`entity` integer NOT NULL,
	`from_poll` integer NOT NULL,
	`to_poll` integer,
	`client_id` integer NOT NULL,
	`software_name` integer NOT NULL,
	`software_version` integer NOT NULL,
	`mechanism` integer NOT NULL,
	`auth_state` integer NOT NULL,
	`principal` integer NOT NULL,
	`state` integer NOT NULL,
	`close_time` integer,
	`group_id` integer NOT NULL,
	`group_instance_id` integer NOT NULL,
	`group_member_id` text NOT NULL,
	`transactional_id` integer NOT NULL,
	`api_versions` integer NOT NULL,
	`unknown` text,
	`packed` blob NOT NULL,
	FOREIGN KEY (`entity`) REFERENCES `conn_entity`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `conn_version_by_entity` ON `conn_version` (`entity`,`from_poll`);--> statement-breakpoint
CREATE TABLE `doc` (
	`id` integer PRIMARY KEY NOT NULL,
	`h` integer NOT NULL,
	`body` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `doc_by_hash` ON `doc` (`h`);--> statement-breakpoint
CREATE TABLE `iceberg_sample` (
	`poll` integer PRIMARY KEY NOT NULL,
	`reachable` integer NOT NULL,
	`error_code` integer NOT NULL,
	`error_message` integer NOT NULL,
	FOREIGN KEY (`poll`) REFERENCES `poll`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `link_sample` (
	`poll` integer PRIMARY KEY NOT NULL,
	`name` integer NOT NULL,
	`uid` integer NOT NULL,
	`state` integer NOT NULL,
	`configurations` integer NOT NULL,
	`synced_properties` integer NOT NULL,
	`sr_status` integer NOT NULL,
	FOREIGN KEY (`poll`) REFERENCES `poll`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `link_sample_by_name` ON `link_sample` (`name`);--> statement-breakpoint
CREATE TABLE `meta` (
	`key` text PRIMARY KEY NOT NULL,
	`value` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `poll` (
	`id` integer PRIMARY KEY NOT NULL,
	`cluster_id` integer NOT NULL,
	`operation` text NOT NULL,
	`target` text NOT NULL,
	`round` text NOT NULL,
	`attempt` integer NOT NULL,
	`scheduled_at` integer NOT NULL,
	`started_at` integer NOT NULL,
	`ended_at` integer NOT NULL,
	`ok` integer NOT NULL,
	`outcome` text NOT NULL,
	`kind` text,
	`http_status` integer,
	`message` text,
	`details` text,
	`path` text,
	`bytes` integer NOT NULL,
	`request` text NOT NULL,
	`rows_returned` integer,
	`total_size` integer,
	`fanout_calls` integer,
	`slice` text,
	`extra` text,
	FOREIGN KEY (`cluster_id`) REFERENCES `cluster`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `poll_by_cluster_op_time` ON `poll` (`cluster_id`,`operation`,`started_at`);--> statement-breakpoint
CREATE INDEX `poll_by_target` ON `poll` (`cluster_id`,`operation`,`target`,`ok`,`started_at`);--> statement-breakpoint
CREATE INDEX `poll_by_round` ON `poll` (`cluster_id`,`round`);--> statement-breakpoint
CREATE INDEX `poll_by_time` ON `poll` (`started_at`);--> statement-breakpoint
CREATE TABLE `poll_raw` (
	`poll_id` integer PRIMARY KEY NOT NULL,
	`encoding` text NOT NULL,
	`body` blob NOT NULL,
	FOREIGN KEY (`poll_id`) REFERENCES `poll`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `str` (
	`id` integer PRIMARY KEY NOT NULL,
	`h` integer NOT NULL,
	`s` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `str_by_hash` ON `str` (`h`);--> statement-breakpoint
CREATE TABLE `upgrade_sample` (
	`poll` integer PRIMARY KEY NOT NULL,
	`active_version` integer NOT NULL,
	`version_after_finalization` integer NOT NULL,
	`auto_finalization` integer NOT NULL,
	`state` integer NOT NULL,
	FOREIGN KEY (`poll`) REFERENCES `poll`(`id`) ON UPDATE no action ON DELETE cascade
);
