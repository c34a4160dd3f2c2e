-- conn_entity keeps its uid once, in the packed record (packEntity: the id, then the uid as a
-- string: a varint of twice its UTF-8 length, then the bytes; or, for a uid with lone
-- surrogates, twice its UTF-16 length plus one, then each code unit as a varint). The uid column,
-- a second copy of 37 bytes and more a row, goes; the hash index is over the uid as the record
-- holds it: its length varint and what follows, the bytes that uidKey in
-- src/db/connections/packed.ts makes of a uid. The function never fails: a record that ends
-- early or holds an impossible length gives NULL (no lookup finds it, as with any damaged record).
-- COST 1000 (a PL/pgSQL call, not an operator's): a plan calling it on every row of the table is
-- costed as the slow thing it is.
CREATE FUNCTION flightrec_entity_uid(b bytea) RETURNS bytea
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE COST 1000 AS $$
DECLARE
  size int := length(b);
  p int := 0;
  start int;
  n bigint := 0;
  shift int := 0;
  c int;
BEGIN
  -- the id varint
  LOOP
    IF p >= size OR p >= 10 THEN RETURN NULL; END IF;
    c := get_byte(b, p);
    p := p + 1;
    EXIT WHEN c < 128;
  END LOOP;
  start := p;
  -- the string's length varint (a uid fits in 28 bits many times over)
  LOOP
    IF p >= size OR shift > 28 THEN RETURN NULL; END IF;
    c := get_byte(b, p);
    n := n | ((c & 127)::bigint << shift);
    shift := shift + 7;
    p := p + 1;
    EXIT WHEN c < 128;
  END LOOP;
  IF n % 2 = 0 THEN
    p := p + (n / 2)::int;
  ELSE
    -- code units, a varint each
    FOR i IN 1..(n / 2) LOOP
      LOOP
        IF p >= size THEN RETURN NULL; END IF;
        c := get_byte(b, p);
        p := p + 1;
        EXIT WHEN c < 128;
      END LOOP;
    END LOOP;
  END IF;
  IF p > size THEN RETURN NULL; END IF;
  RETURN substring(b FROM start + 1 FOR p - start);
END
$$;
--> statement-breakpoint
DROP VIEW "connection_v";--> statement-breakpoint
DROP INDEX "conn_entity_by_uid";--> statement-breakpoint
ALTER TABLE "conn_entity" DROP COLUMN "uid";--> statement-breakpoint
CREATE INDEX "conn_entity_by_uid" ON "conn_entity" USING hash (flightrec_entity_uid("packed"));--> statement-breakpoint
CREATE VIEW "connection_v" AS SELECT v."id" AS "version", e."id" AS "entity", c."name" AS "cluster", pe."uid",
	v."from_poll", v."to_poll", e."first_poll", e."last_poll", pe."node_id", pe."shard_id",
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
