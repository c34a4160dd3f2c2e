-- Two cuts in the per-connection rows of PostgreSQL's store (bytes per sample, docs/performance.md):
--
-- conn_entity_by_uid becomes a b-tree over a 4-byte hash of the uid's record key (the uid as the
-- packed record holds it, flightrec_entity_uid in 0008), not a hash index over the key: a hash
-- index keeps its buckets half empty as it grows, and took 2.38 MB for 49,800 entities inserted a
-- poll at a time against 1.29 MB for this b-tree (measured on a copy of the store bench's
-- database). The lookup compares the keys as well (src/db/connections/uid-match.ts), so two uids
-- with one hash are still told apart. hashtext is the hash PostgreSQL's own hash partitioning
-- uses, stable across platforms and upgrades; the key is hex-encoded to be text.
--
-- conn_version loses from_poll, which its packed record holds (packVersion: id, entity, first
-- poll): 8 bytes a row; the readers take it from the record already. flightrec_unpack_version
-- now gives it, and connection_v reads it from there. As in 0006, the dropped column keeps its
-- space in existing rows until the table is rewritten (VACUUM FULL).
CREATE FUNCTION flightrec_uid_hash(key bytea) RETURNS integer
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT hashtext(encode(key, 'hex'))
$$;
--> statement-breakpoint
DROP VIEW "connection_v";--> statement-breakpoint
DROP INDEX "conn_entity_by_uid";--> statement-breakpoint
CREATE INDEX "conn_entity_by_uid" ON "conn_entity" USING btree (flightrec_uid_hash(flightrec_entity_uid("packed")));--> statement-breakpoint
ALTER TABLE "conn_version" DROP COLUMN "from_poll";--> statement-breakpoint
DROP FUNCTION flightrec_unpack_version(bytea);--> statement-breakpoint
-- A version record (packVersion): id, entity, first poll, then the slow fields of
-- src/db/connections/fields.ts in order (str ids, but close_time a time and group_member_id a
-- string), then a flags varint (bit 0: the unknown fields' JSON follows).
CREATE FUNCTION flightrec_unpack_version(b bytea, OUT from_poll bigint, OUT client_id bigint, OUT software_name bigint,
  OUT software_version bigint, OUT mechanism bigint, OUT auth_state bigint, OUT principal bigint,
  OUT state bigint, OUT close_time numeric, OUT group_id bigint, OUT group_instance_id bigint,
  OUT group_member_id text, OUT transactional_id bigint, OUT api_versions bigint, OUT unknown text)
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT r[3]::bigint, r[4]::bigint, r[5]::bigint, r[6]::bigint, r[7]::bigint, r[8]::bigint, r[9]::bigint, r[10]::bigint,
    r[11]::numeric, r[12]::bigint, r[13]::bigint, r[14], r[15]::bigint, r[16]::bigint, r[17]
    FROM (SELECT flightrec_unpack_record(b, 'uuuuuuuuuutuusuuf') AS r OFFSET 0) x
$$;
--> statement-breakpoint
CREATE VIEW "connection_v" AS SELECT v."id" AS "version", e."id" AS "entity", c."name" AS "cluster", pe."uid",
	pv."from_poll", v."to_poll", e."first_poll", e."last_poll", pe."node_id", pe."shard_id",
	(SELECT s FROM str WHERE id = pe."listener") AS "listener_name",
	pe."source_ip", pe."source_port", pe."tls",
	flightrec_iso_time(pe."open_time") AS "open_time",
	(SELECT s FROM str WHERE id = pv."client_id") AS "client_id",
	(SELECT s FROM str WHERE id = pv."software_name") AS "client_software_name",
	(SELECT s FROM str WHERE id = pv."software_version") AS "client_software_version",
	(SELECT s FROM str WHERE id = pv."principal") AS "user_principal",
	(SELECT s FROM str WHERE id = pv."mechanism") AS "mechanism",
	(SELECT s FROM str WHERE id = pv."auth_state") AS "auth_state",
	(SELECT s FROM str WHERE id = pv."state") AS "state",
	flightrec_iso_time(pv."close_time") AS "close_time",
	(SELECT s FROM str WHERE id = pv."group_id") AS "group_id",
	(SELECT s FROM str WHERE id = pv."group_instance_id") AS "group_instance_id",
	pv."group_member_id",
	(SELECT s FROM str WHERE id = pv."transactional_id") AS "transactional_id",
	(SELECT s FROM str WHERE id = pv."api_versions") AS "api_versions", pv."unknown"
	FROM "conn_version" v JOIN "conn_entity" e ON e."cluster_id" = v."cluster_id" AND e."id" = v."entity" JOIN "cluster" c ON c."id" = e."cluster_id",
	LATERAL flightrec_unpack_entity(e."packed") pe, LATERAL flightrec_unpack_version(v."packed") pv;
