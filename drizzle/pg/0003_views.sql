-- Text compares byte for byte, as in SQLite (BINARY), whatever the database's default collation:
-- the SQL pre-filter of the filter engine must order strings as the filter engine does.
DO $$
DECLARE r record;
BEGIN
  FOR r IN
    SELECT c.relname, a.attname FROM pg_attribute a
      JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND NOT c.relispartition
       AND a.attnum > 0 AND NOT a.attisdropped AND a.atttypid = 'text'::regtype
  LOOP
    EXECUTE format('ALTER TABLE %I ALTER COLUMN %I TYPE text COLLATE "C"', r.relname, r.attname);
  END LOOP;
END $$;
--> statement-breakpoint
-- Read-only views that resolve the string dictionary, for people using psql directly (the same
-- views as SQLite's, drizzle/0001; times as ISO-8601 UTC text). The store itself never reads them.
CREATE VIEW "poll_v" AS SELECT p."id", c."name" AS "cluster", p."operation", p."target", p."round", p."attempt",
	to_char(to_timestamp(p."started_at" / 1e9) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "started",
	(p."ended_at" - p."started_at") / 1000000.0 AS "duration_ms", p."outcome", p."http_status", p."message",
	p."bytes", p."rows_returned", p."total_size", p."fanout_calls", p."slice", p."request"
	FROM "poll" p JOIN "cluster" c ON c."id" = p."cluster_id";
--> statement-breakpoint
CREATE VIEW "connection_v" AS SELECT v."id" AS "version", e."id" AS "entity", c."name" AS "cluster", e."uid",
	v."from_poll", v."to_poll", e."first_poll", e."last_poll", e."node_id", e."shard_id",
	(SELECT s FROM str WHERE id = e."listener") AS "listener_name",
	e."source_ip", e."source_port", e."tls",
	to_char(to_timestamp(e."open_time" / 1e9) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "open_time",
	(SELECT s FROM str WHERE id = v."client_id") AS "client_id",
	(SELECT s FROM str WHERE id = v."software_name") AS "client_software_name",
	(SELECT s FROM str WHERE id = v."software_version") AS "client_software_version",
	(SELECT s FROM str WHERE id = v."principal") AS "user_principal",
	(SELECT s FROM str WHERE id = v."mechanism") AS "mechanism",
	(SELECT s FROM str WHERE id = v."auth_state") AS "auth_state",
	(SELECT s FROM str WHERE id = v."state") AS "state",
	CASE WHEN v."close_time" = 0 THEN NULL ELSE to_char(to_timestamp(v."close_time" / 1e9) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') END AS "close_time",
	(SELECT s FROM str WHERE id = v."group_id") AS "group_id",
	(SELECT s FROM str WHERE id = v."group_instance_id") AS "group_instance_id",
	v."group_member_id",
	(SELECT s FROM str WHERE id = v."transactional_id") AS "transactional_id",
	(SELECT s FROM str WHERE id = v."api_versions") AS "api_versions", v."unknown"
	FROM "conn_version" v JOIN "conn_entity" e ON e."cluster_id" = v."cluster_id" AND e."id" = v."entity" JOIN "cluster" c ON c."id" = e."cluster_id";
--> statement-breakpoint
CREATE VIEW "shadow_topic_v" AS SELECT t."poll", t."pos", (SELECT s FROM str WHERE id = t."link") AS "shadow_link_name",
	(SELECT s FROM str WHERE id = t."name") AS "name", (SELECT s FROM str WHERE id = t."topic_id") AS "topic_id",
	(SELECT s FROM str WHERE id = t."source_topic_name") AS "source_topic_name",
	(SELECT s FROM str WHERE id = t."source_topic_id") AS "source_topic_id",
	(SELECT s FROM str WHERE id = t."state") AS "state", t."unknown"
	FROM "shadow_topic_sample" t;
--> statement-breakpoint
CREATE VIEW "shadow_partition_v" AS SELECT p."poll", (SELECT s FROM str WHERE id = t."link") AS "shadow_link_name",
	(SELECT s FROM str WHERE id = t."name") AS "topic_name", p."partition_id", p."high_watermark",
	p."source_high_watermark", p."source_last_stable_offset", p."source_high_watermark" - p."high_watermark" AS "lag",
	p."source_last_updated"
	FROM "shadow_partition_sample" p JOIN "shadow_topic_sample" t ON t."cluster_id" = p."cluster_id" AND t."poll" = p."poll" AND t."pos" = p."topic_pos";
--> statement-breakpoint
CREATE VIEW "shadow_task_v" AS SELECT k."poll", k."pos", (SELECT s FROM str WHERE id = k."link") AS "shadow_link_name",
	(SELECT s FROM str WHERE id = k."name") AS "name", (SELECT s FROM str WHERE id = k."state") AS "state",
	(SELECT s FROM str WHERE id = k."reason") AS "reason", k."broker_id", k."shard"
	FROM "shadow_task_sample" k;
--> statement-breakpoint
CREATE VIEW "upgrade_member_v" AS SELECT m."poll", m."pos", m."node_id", m."alive", m."logical_version",
	(SELECT s FROM str WHERE id = m."release_version") AS "release_version", m."version_known"
	FROM "upgrade_member_sample" m;
--> statement-breakpoint
CREATE VIEW "iceberg_partition_v" AS SELECT p."poll", (SELECT s FROM str WHERE id = t."topic") AS "topic",
	(SELECT s FROM str WHERE id = t."lifecycle_state") AS "lifecycle_state", p."partition", p."commit_lag",
	p."last_committed_offset", p."last_translated_offset"
	FROM "iceberg_partition_sample" p JOIN "iceberg_topic_sample" t ON t."cluster_id" = p."cluster_id" AND t."poll" = p."poll" AND t."pos" = p."topic_pos";
