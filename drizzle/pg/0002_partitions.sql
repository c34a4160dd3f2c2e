-- The per-poll tables, re-created as partitioned by day on the poll id (high 32 bits: the UTC day,
-- see flightrec_poll_id() in 0000): drizzle-kit cannot declare partitioning, so 0001 created them
-- plain (from src/db/pg/schema.ts, which stays their declaration) and this migration, which runs on
-- the empty tables, drops them and creates the same columns, keys and indexes PARTITION BY RANGE.
-- Every table gets a DEFAULT partition (a safety net for days no partition was made ready for);
-- flightrec_ensure_partitions(days_ahead) makes today's .. today + days_ahead's day partitions,
-- named <table>_dYYYYMMDD, and is called after each migration and at each retention pass.
DROP TABLE "iceberg_partition_sample" CASCADE;
--> statement-breakpoint
DROP TABLE "iceberg_topic_sample" CASCADE;
--> statement-breakpoint
DROP TABLE "upgrade_member_sample" CASCADE;
--> statement-breakpoint
DROP TABLE "shadow_partition_sample" CASCADE;
--> statement-breakpoint
DROP TABLE "shadow_topic_sample" CASCADE;
--> statement-breakpoint
DROP TABLE "shadow_task_sample" CASCADE;
--> statement-breakpoint
DROP TABLE "iceberg_sample" CASCADE;
--> statement-breakpoint
DROP TABLE "upgrade_sample" CASCADE;
--> statement-breakpoint
DROP TABLE "link_sample" CASCADE;
--> statement-breakpoint
DROP TABLE "conn_frame" CASCADE;
--> statement-breakpoint
DROP TABLE "poll_raw" CASCADE;
--> statement-breakpoint
DROP TABLE "poll" CASCADE;
--> statement-breakpoint
CREATE TABLE "poll" (
	"id" bigint DEFAULT flightrec_poll_id() NOT NULL,
	"cluster_id" bigint NOT NULL,
	"operation" text NOT NULL,
	"target" text NOT NULL,
	"round" text NOT NULL,
	"attempt" bigint NOT NULL,
	"scheduled_at" bigint NOT NULL,
	"started_at" bigint NOT NULL,
	"ended_at" bigint NOT NULL,
	"ok" bigint NOT NULL,
	"outcome" text NOT NULL,
	"kind" text,
	"http_status" bigint,
	"message" text,
	"details" text,
	"path" text,
	"bytes" bigint NOT NULL,
	"request" text NOT NULL,
	"rows_returned" bigint,
	"total_size" bigint,
	"fanout_calls" bigint,
	"slice" text,
	"extra" text,
	"redactions" bigint,
	CONSTRAINT "poll_pk" PRIMARY KEY("cluster_id","id")
) PARTITION BY RANGE ("id");
--> statement-breakpoint
CREATE TABLE "poll_raw" (
	"cluster_id" bigint DEFAULT current_setting('flightrec.cluster_id')::bigint NOT NULL,
	"poll_id" bigint NOT NULL,
	"encoding" text NOT NULL,
	"body" "bytea" NOT NULL,
	CONSTRAINT "poll_raw_pk" PRIMARY KEY("cluster_id","poll_id")
) PARTITION BY RANGE ("poll_id");
--> statement-breakpoint
CREATE TABLE "conn_frame" (
	"cluster_id" bigint DEFAULT current_setting('flightrec.cluster_id')::bigint NOT NULL,
	"poll" bigint NOT NULL,
	"batch" bigint NOT NULL,
	"seq" bigint NOT NULL,
	"rows" bigint NOT NULL,
	"total_size" bigint NOT NULL,
	"dup_uids" bigint DEFAULT 0 NOT NULL,
	"versions" "bytea" NOT NULL,
	"head" "bytea",
	CONSTRAINT "conn_frame_pk" PRIMARY KEY("cluster_id","poll")
) PARTITION BY RANGE ("poll");
--> statement-breakpoint
CREATE TABLE "link_sample" (
	"cluster_id" bigint DEFAULT current_setting('flightrec.cluster_id')::bigint NOT NULL,
	"poll" bigint NOT NULL,
	"name" bigint NOT NULL,
	"uid" bigint NOT NULL,
	"state" bigint NOT NULL,
	"configurations" bigint NOT NULL,
	"synced_properties" bigint NOT NULL,
	"sr_status" bigint NOT NULL,
	CONSTRAINT "link_sample_pk" PRIMARY KEY("cluster_id","poll")
) PARTITION BY RANGE ("poll");
--> statement-breakpoint
CREATE TABLE "upgrade_sample" (
	"cluster_id" bigint DEFAULT current_setting('flightrec.cluster_id')::bigint NOT NULL,
	"poll" bigint NOT NULL,
	"active_version" bigint NOT NULL,
	"version_after_finalization" bigint NOT NULL,
	"auto_finalization" bigint NOT NULL,
	"state" bigint NOT NULL,
	CONSTRAINT "upgrade_sample_pk" PRIMARY KEY("cluster_id","poll")
) PARTITION BY RANGE ("poll");
--> statement-breakpoint
CREATE TABLE "iceberg_sample" (
	"cluster_id" bigint DEFAULT current_setting('flightrec.cluster_id')::bigint NOT NULL,
	"poll" bigint NOT NULL,
	"reachable" bigint NOT NULL,
	"error_code" bigint NOT NULL,
	"error_message" bigint NOT NULL,
	CONSTRAINT "iceberg_sample_pk" PRIMARY KEY("cluster_id","poll")
) PARTITION BY RANGE ("poll");
--> statement-breakpoint
CREATE TABLE "shadow_task_sample" (
	"cluster_id" bigint DEFAULT current_setting('flightrec.cluster_id')::bigint NOT NULL,
	"poll" bigint NOT NULL,
	"pos" bigint NOT NULL,
	"link" bigint NOT NULL,
	"name" bigint NOT NULL,
	"state" bigint NOT NULL,
	"reason" bigint NOT NULL,
	"broker_id" bigint NOT NULL,
	"shard" bigint NOT NULL,
	"unknown" text,
	CONSTRAINT "shadow_task_sample_pk" PRIMARY KEY("cluster_id","poll","pos")
) PARTITION BY RANGE ("poll");
--> statement-breakpoint
CREATE TABLE "shadow_topic_sample" (
	"cluster_id" bigint DEFAULT current_setting('flightrec.cluster_id')::bigint NOT NULL,
	"poll" bigint NOT NULL,
	"pos" bigint NOT NULL,
	"link" bigint NOT NULL,
	"name" bigint NOT NULL,
	"topic_id" bigint NOT NULL,
	"source_topic_name" bigint NOT NULL,
	"source_topic_id" bigint NOT NULL,
	"state" bigint NOT NULL,
	"unknown" text,
	CONSTRAINT "shadow_topic_sample_pk" PRIMARY KEY("cluster_id","poll","pos")
) PARTITION BY RANGE ("poll");
--> statement-breakpoint
CREATE TABLE "shadow_partition_sample" (
	"cluster_id" bigint DEFAULT current_setting('flightrec.cluster_id')::bigint NOT NULL,
	"poll" bigint NOT NULL,
	"topic_pos" bigint NOT NULL,
	"pos" bigint NOT NULL,
	"partition_id" bigint,
	"high_watermark" bigint,
	"source_high_watermark" bigint,
	"source_last_stable_offset" bigint,
	"source_last_updated" bigint,
	"unknown" text,
	CONSTRAINT "shadow_partition_sample_pk" PRIMARY KEY("cluster_id","poll","topic_pos","pos")
) PARTITION BY RANGE ("poll");
--> statement-breakpoint
CREATE TABLE "upgrade_member_sample" (
	"cluster_id" bigint DEFAULT current_setting('flightrec.cluster_id')::bigint NOT NULL,
	"poll" bigint NOT NULL,
	"pos" bigint NOT NULL,
	"node_id" bigint NOT NULL,
	"alive" bigint NOT NULL,
	"logical_version" bigint NOT NULL,
	"release_version" bigint NOT NULL,
	"version_known" bigint NOT NULL,
	"unknown" text,
	CONSTRAINT "upgrade_member_sample_pk" PRIMARY KEY("cluster_id","poll","pos")
) PARTITION BY RANGE ("poll");
--> statement-breakpoint
CREATE TABLE "iceberg_topic_sample" (
	"cluster_id" bigint DEFAULT current_setting('flightrec.cluster_id')::bigint NOT NULL,
	"poll" bigint NOT NULL,
	"pos" bigint NOT NULL,
	"topic" bigint NOT NULL,
	"lifecycle_state" bigint NOT NULL,
	"unknown" text,
	CONSTRAINT "iceberg_topic_sample_pk" PRIMARY KEY("cluster_id","poll","pos")
) PARTITION BY RANGE ("poll");
--> statement-breakpoint
CREATE TABLE "iceberg_partition_sample" (
	"cluster_id" bigint DEFAULT current_setting('flightrec.cluster_id')::bigint NOT NULL,
	"poll" bigint NOT NULL,
	"topic_pos" bigint NOT NULL,
	"pos" bigint NOT NULL,
	"partition" bigint NOT NULL,
	"commit_lag" bigint,
	"last_committed_offset" bigint,
	"last_translated_offset" bigint,
	"unknown" text,
	CONSTRAINT "iceberg_partition_sample_pk" PRIMARY KEY("cluster_id","poll","topic_pos","pos")
) PARTITION BY RANGE ("poll");
--> statement-breakpoint
ALTER TABLE "conn_frame" ADD CONSTRAINT "conn_frame_poll_fk" FOREIGN KEY ("cluster_id","poll") REFERENCES "public"."poll"("cluster_id","id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "conn_frame" ADD CONSTRAINT "conn_frame_batch_fk" FOREIGN KEY ("cluster_id","batch") REFERENCES "public"."conn_batch"("cluster_id","id") ON DELETE no action ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "iceberg_partition_sample" ADD CONSTRAINT "iceberg_partition_sample_poll_fk" FOREIGN KEY ("cluster_id","poll") REFERENCES "public"."poll"("cluster_id","id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "iceberg_sample" ADD CONSTRAINT "iceberg_sample_poll_fk" FOREIGN KEY ("cluster_id","poll") REFERENCES "public"."poll"("cluster_id","id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "iceberg_topic_sample" ADD CONSTRAINT "iceberg_topic_sample_poll_fk" FOREIGN KEY ("cluster_id","poll") REFERENCES "public"."poll"("cluster_id","id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "link_sample" ADD CONSTRAINT "link_sample_poll_fk" FOREIGN KEY ("cluster_id","poll") REFERENCES "public"."poll"("cluster_id","id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "poll" ADD CONSTRAINT "poll_cluster_fk" FOREIGN KEY ("cluster_id") REFERENCES "public"."cluster"("id") ON DELETE no action ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "poll_raw" ADD CONSTRAINT "poll_raw_poll_fk" FOREIGN KEY ("cluster_id","poll_id") REFERENCES "public"."poll"("cluster_id","id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "shadow_partition_sample" ADD CONSTRAINT "shadow_partition_sample_poll_fk" FOREIGN KEY ("cluster_id","poll") REFERENCES "public"."poll"("cluster_id","id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "shadow_task_sample" ADD CONSTRAINT "shadow_task_sample_poll_fk" FOREIGN KEY ("cluster_id","poll") REFERENCES "public"."poll"("cluster_id","id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "shadow_topic_sample" ADD CONSTRAINT "shadow_topic_sample_poll_fk" FOREIGN KEY ("cluster_id","poll") REFERENCES "public"."poll"("cluster_id","id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "upgrade_member_sample" ADD CONSTRAINT "upgrade_member_sample_poll_fk" FOREIGN KEY ("cluster_id","poll") REFERENCES "public"."poll"("cluster_id","id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "upgrade_sample" ADD CONSTRAINT "upgrade_sample_poll_fk" FOREIGN KEY ("cluster_id","poll") REFERENCES "public"."poll"("cluster_id","id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "conn_frame_by_poll" ON "conn_frame" USING btree ("poll");
--> statement-breakpoint
CREATE INDEX "conn_frame_by_batch" ON "conn_frame" USING btree ("batch","seq");
--> statement-breakpoint
CREATE INDEX "iceberg_partition_by_poll" ON "iceberg_partition_sample" USING btree ("poll","topic_pos","pos");
--> statement-breakpoint
CREATE INDEX "iceberg_sample_by_poll" ON "iceberg_sample" USING btree ("poll");
--> statement-breakpoint
CREATE INDEX "iceberg_topic_by_poll" ON "iceberg_topic_sample" USING btree ("poll","pos");
--> statement-breakpoint
CREATE INDEX "iceberg_topic_by_topic" ON "iceberg_topic_sample" USING btree ("topic");
--> statement-breakpoint
CREATE INDEX "link_sample_by_poll" ON "link_sample" USING btree ("poll");
--> statement-breakpoint
CREATE INDEX "link_sample_by_name" ON "link_sample" USING btree ("name");
--> statement-breakpoint
CREATE INDEX "poll_by_id" ON "poll" USING btree ("id");
--> statement-breakpoint
CREATE INDEX "poll_by_cluster_op_time" ON "poll" USING btree ("cluster_id","operation","started_at");
--> statement-breakpoint
CREATE INDEX "poll_by_target" ON "poll" USING btree ("cluster_id","operation","target","ok","started_at");
--> statement-breakpoint
CREATE INDEX "poll_by_round" ON "poll" USING btree ("cluster_id","round");
--> statement-breakpoint
CREATE INDEX "poll_by_time" ON "poll" USING btree ("started_at");
--> statement-breakpoint
CREATE INDEX "poll_raw_by_poll" ON "poll_raw" USING btree ("poll_id");
--> statement-breakpoint
CREATE INDEX "shadow_partition_by_poll" ON "shadow_partition_sample" USING btree ("poll","topic_pos","pos");
--> statement-breakpoint
CREATE INDEX "shadow_task_by_poll" ON "shadow_task_sample" USING btree ("poll","pos");
--> statement-breakpoint
CREATE INDEX "shadow_task_by_key" ON "shadow_task_sample" USING btree ("link","name","broker_id","shard");
--> statement-breakpoint
CREATE INDEX "shadow_topic_by_poll" ON "shadow_topic_sample" USING btree ("poll","pos");
--> statement-breakpoint
CREATE INDEX "shadow_topic_by_key" ON "shadow_topic_sample" USING btree ("link","name");
--> statement-breakpoint
CREATE INDEX "upgrade_member_by_poll" ON "upgrade_member_sample" USING btree ("poll","pos");
--> statement-breakpoint
CREATE INDEX "upgrade_member_by_node" ON "upgrade_member_sample" USING btree ("node_id");
--> statement-breakpoint
CREATE INDEX "upgrade_sample_by_poll" ON "upgrade_sample" USING btree ("poll");
--> statement-breakpoint
CREATE TABLE "poll_default" PARTITION OF "poll" DEFAULT;
--> statement-breakpoint
CREATE TABLE "poll_raw_default" PARTITION OF "poll_raw" DEFAULT;
--> statement-breakpoint
CREATE TABLE "conn_frame_default" PARTITION OF "conn_frame" DEFAULT;
--> statement-breakpoint
CREATE TABLE "link_sample_default" PARTITION OF "link_sample" DEFAULT;
--> statement-breakpoint
CREATE TABLE "upgrade_sample_default" PARTITION OF "upgrade_sample" DEFAULT;
--> statement-breakpoint
CREATE TABLE "iceberg_sample_default" PARTITION OF "iceberg_sample" DEFAULT;
--> statement-breakpoint
CREATE TABLE "shadow_task_sample_default" PARTITION OF "shadow_task_sample" DEFAULT;
--> statement-breakpoint
CREATE TABLE "shadow_topic_sample_default" PARTITION OF "shadow_topic_sample" DEFAULT;
--> statement-breakpoint
CREATE TABLE "shadow_partition_sample_default" PARTITION OF "shadow_partition_sample" DEFAULT;
--> statement-breakpoint
CREATE TABLE "upgrade_member_sample_default" PARTITION OF "upgrade_member_sample" DEFAULT;
--> statement-breakpoint
CREATE TABLE "iceberg_topic_sample_default" PARTITION OF "iceberg_topic_sample" DEFAULT;
--> statement-breakpoint
CREATE TABLE "iceberg_partition_sample_default" PARTITION OF "iceberg_partition_sample" DEFAULT;
--> statement-breakpoint
CREATE FUNCTION flightrec_ensure_partitions(days_ahead int) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
  today int := floor(extract(epoch from clock_timestamp()) / 86400)::int;
  t record;
  d int;
  lo bigint;
  hi bigint;
  part text;
  busy boolean;
  created int := 0;
BEGIN
  -- one caller at a time (collectors start together); the others then find the partitions made
  PERFORM pg_advisory_xact_lock(7380389782208410114);
  FOR t IN SELECT * FROM (VALUES ('poll', 'id'), ('poll_raw', 'poll_id'), ('conn_frame', 'poll'), ('link_sample', 'poll'), ('upgrade_sample', 'poll'), ('iceberg_sample', 'poll'), ('shadow_task_sample', 'poll'), ('shadow_topic_sample', 'poll'), ('shadow_partition_sample', 'poll'), ('upgrade_member_sample', 'poll'), ('iceberg_topic_sample', 'poll'), ('iceberg_partition_sample', 'poll')) AS v(tbl, col) LOOP
    FOR d IN today .. today + greatest(days_ahead, 0) LOOP
      lo := d::bigint << 32;
      hi := (d::bigint + 1) << 32;
      part := t.tbl || '_d' || to_char(date '1970-01-01' + d::int, 'YYYYMMDD');
      CONTINUE WHEN to_regclass(quote_ident(part)) IS NOT NULL;
      -- rows of that day already in the DEFAULT partition (no partition was ready in time): the
      -- partition cannot be made without moving them, so they stay there and row retention removes them
      EXECUTE format('SELECT EXISTS (SELECT 1 FROM %I WHERE %I >= $1 AND %I < $2)', t.tbl || '_default', t.col, t.col)
        INTO busy USING lo, hi;
      CONTINUE WHEN busy;
      EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%s) TO (%s)', part, t.tbl, lo, hi);
      created := created + 1;
    END LOOP;
  END LOOP;
  RETURN created;
END
$$;
