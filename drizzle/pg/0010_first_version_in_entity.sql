-- A connection's first version is kept in its entity row (first_version, the packed record of
-- packVersion, its id the entity's), not in a conn_version row of its own: on the store bench most
-- versions are first versions (58 %), and each such row cost a 24-byte header, its ids again, and
-- two index entries. New entities and versions take their ids from one counter
-- (src/db/connections/ingest.ts), so that a version id is either a conn_version row or an entity
-- with first_version, never both. Entities written before keep first_version NULL and all their
-- versions in conn_version, whose ids may equal entity ids: a version id is looked up in
-- conn_version first. A folded version has no to_poll: it is deleted with its entity, and the
-- view gives the first poll of the entity's next version.
ALTER TABLE "conn_entity" ADD COLUMN "first_version" bytea;--> statement-breakpoint
DROP VIEW "connection_v";--> statement-breakpoint
CREATE VIEW "connection_v" AS SELECT v."version", e."id" AS "entity", c."name" AS "cluster", pe."uid",
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
	FROM (SELECT "cluster_id", "id" AS "version", "entity", "to_poll", "packed" FROM "conn_version"
		UNION ALL
		SELECT f."cluster_id", f."id", f."id", (SELECT min(nv."from_poll") FROM "conn_version" n,
			LATERAL flightrec_unpack_version(n."packed") nv WHERE n."cluster_id" = f."cluster_id" AND n."entity" = f."id"),
			f."first_version" FROM "conn_entity" f WHERE f."first_version" IS NOT NULL) v
	JOIN "conn_entity" e ON e."cluster_id" = v."cluster_id" AND e."id" = v."entity" JOIN "cluster" c ON c."id" = e."cluster_id",
	LATERAL flightrec_unpack_entity(e."packed") pe, LATERAL flightrec_unpack_version(v."packed") pv;
