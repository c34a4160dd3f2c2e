-- Fewer and smaller indexes on the three largest tables (src/db/pg/schema.ts), about 40 % of
-- their index bytes: the primary keys of conn_entity and conn_version lead with the id, so that
-- reads by id alone use them and the separate id indexes go; conn_chunk's primary key leads with
-- the batch, so that its batch index goes; the uid lookup uses a hash index (4 bytes of each uid
-- instead of the whole text, equality is all it serves); an entity's versions are found by the
-- entity alone (the reader sorts them). Every key still includes cluster_id. The foreign key of
-- conn_version depends on conn_entity's primary key: it is dropped first and made again.
ALTER TABLE "conn_version" DROP CONSTRAINT "conn_version_entity_fk";
--> statement-breakpoint
ALTER TABLE "conn_entity" DROP CONSTRAINT "conn_entity_pk";
--> statement-breakpoint
ALTER TABLE "conn_entity" ADD CONSTRAINT "conn_entity_pk" PRIMARY KEY("id","cluster_id");
--> statement-breakpoint
ALTER TABLE "conn_version" DROP CONSTRAINT "conn_version_pk";
--> statement-breakpoint
ALTER TABLE "conn_version" ADD CONSTRAINT "conn_version_pk" PRIMARY KEY("id","cluster_id");
--> statement-breakpoint
ALTER TABLE "conn_version" ADD CONSTRAINT "conn_version_entity_fk" FOREIGN KEY ("cluster_id","entity") REFERENCES "public"."conn_entity"("cluster_id","id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "conn_chunk" DROP CONSTRAINT "conn_chunk_pk";
--> statement-breakpoint
ALTER TABLE "conn_chunk" ADD CONSTRAINT "conn_chunk_pk" PRIMARY KEY("batch","first_entity","cluster_id");
--> statement-breakpoint
DROP INDEX "conn_chunk_by_batch";
--> statement-breakpoint
DROP INDEX "conn_entity_by_id";
--> statement-breakpoint
DROP INDEX "conn_version_by_id";
--> statement-breakpoint
DROP INDEX "conn_entity_by_uid";
--> statement-breakpoint
CREATE INDEX "conn_entity_by_uid" ON "conn_entity" USING hash ("uid");
--> statement-breakpoint
DROP INDEX "conn_version_by_entity";
--> statement-breakpoint
CREATE INDEX "conn_version_by_entity" ON "conn_version" USING btree ("entity");
