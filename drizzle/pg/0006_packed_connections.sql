-- conn_entity and conn_version keep each connection record once, packed (the `packed` bytea,
-- src/db/connections/packed.ts), without the typed copy of its fields SQLite keeps next to it:
-- on PostgreSQL those columns (8 bytes each at least, and a row header) made the two tables more
-- than half of the store. What used them: the SQL pre-filter of connection queries (on PostgreSQL
-- it now narrows by uid only; the filter engine decides the rest, with the same answers) and the
-- psql view connection_v, which now decodes the records with the functions below. Columns
-- dropped here keep their space in existing rows until the tables are rewritten (VACUUM FULL).
DROP VIEW "connection_v";
--> statement-breakpoint
ALTER TABLE "conn_entity" DROP COLUMN "node_id", DROP COLUMN "shard_id", DROP COLUMN "listener",
  DROP COLUMN "source_ip", DROP COLUMN "source_port", DROP COLUMN "tls", DROP COLUMN "open_time",
  DROP COLUMN "extra";
--> statement-breakpoint
ALTER TABLE "conn_version" DROP COLUMN "client_id", DROP COLUMN "software_name",
  DROP COLUMN "software_version", DROP COLUMN "mechanism", DROP COLUMN "auth_state",
  DROP COLUMN "principal", DROP COLUMN "state", DROP COLUMN "close_time", DROP COLUMN "group_id",
  DROP COLUMN "group_instance_id", DROP COLUMN "group_member_id", DROP COLUMN "transactional_id",
  DROP COLUMN "api_versions", DROP COLUMN "unknown";
--> statement-breakpoint
-- An unsigned varint of a packed record at byte `pos` (ByteWriter.uint): its value and the
-- position after it. Past the end of the record: an error naming the position.
CREATE FUNCTION flightrec_uvarint(b bytea, pos integer, OUT v numeric, OUT next integer)
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
  byte integer;
  mul numeric := 1;
BEGIN
  v := 0;
  next := pos;
  LOOP
    IF next >= length(b) THEN
      RAISE EXCEPTION 'flightrec: a varint at byte % runs past the end of its %-byte record', pos, length(b);
    END IF;
    byte := get_byte(b, next);
    next := next + 1;
    v := v + (byte & 127) * mul;
    EXIT WHEN byte < 128;
    mul := mul * 128;
  END LOOP;
END $$;
--> statement-breakpoint
-- A zigzag varint (ByteWriter.int and .big): its signed value and the position after it.
CREATE FUNCTION flightrec_zigzag(b bytea, pos integer, OUT v numeric, OUT next integer)
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
BEGIN
  SELECT u.v, u.next INTO v, next FROM flightrec_uvarint(b, pos) u;
  v := CASE WHEN mod(v, 2) = 0 THEN v / 2 ELSE -(v + 1) / 2 END;
END $$;
--> statement-breakpoint
-- A string (ByteWriter.string): UTF-8 bytes, or UTF-16 code units for a string with lone
-- surrogates; what PostgreSQL text cannot hold (NUL, a lone surrogate) reads as U+FFFD.
CREATE FUNCTION flightrec_packed_text(b bytea, pos integer, OUT s text, OUT next integer)
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
  head numeric;
  n integer;
  bytes bytea;
  clean bytea;
  unit integer;
  low integer;
  after integer;
  i integer;
BEGIN
  SELECT u.v, u.next INTO head, next FROM flightrec_uvarint(b, pos) u;
  n := floor(head / 2);
  IF mod(head, 2) = 0 THEN
    IF next + n > length(b) THEN
      RAISE EXCEPTION 'flightrec: a string at byte % runs past the end of its %-byte record', pos, length(b);
    END IF;
    bytes := substring(b FROM next + 1 FOR n);
    IF position('\x00'::bytea IN bytes) > 0 THEN
      clean := ''::bytea;
      FOR i IN 0 .. n - 1 LOOP
        clean := clean || CASE WHEN get_byte(bytes, i) = 0 THEN '\xefbfbd'::bytea ELSE substring(bytes FROM i + 1 FOR 1) END;
      END LOOP;
      bytes := clean;
    END IF;
    s := convert_from(bytes, 'UTF8');
    next := next + n;
    RETURN;
  END IF;
  s := '';
  i := 0;
  WHILE i < n LOOP
    SELECT u.v::integer, u.next INTO unit, next FROM flightrec_uvarint(b, next) u;
    i := i + 1;
    IF unit BETWEEN 55296 AND 56319 AND i < n THEN
      SELECT u.v::integer, u.next INTO low, after FROM flightrec_uvarint(b, next) u;
      IF low BETWEEN 56320 AND 57343 THEN
        s := s || chr(65536 + (unit - 55296) * 1024 + (low - 56320));
        next := after;
        i := i + 1;
        CONTINUE;
      END IF;
    END IF;
    s := s || CASE WHEN unit = 0 OR unit BETWEEN 55296 AND 57343 THEN U&'\FFFD' ELSE chr(unit) END;
  END LOOP;
END $$;
--> statement-breakpoint
-- A time (ByteWriter.time): nanoseconds since the epoch, from whole seconds and nanoseconds.
CREATE FUNCTION flightrec_packed_time(b bytea, pos integer, OUT ns numeric, OUT next integer)
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
  sec numeric;
  nano numeric;
BEGIN
  SELECT z.v, z.next INTO sec, next FROM flightrec_zigzag(b, pos) z;
  SELECT u.v, u.next INTO nano, next FROM flightrec_uvarint(b, next) u;
  ns := sec * 1000000000 + nano;
END $$;
--> statement-breakpoint
-- A time as ISO-8601 UTC text (NULL for 0, unset, and for what a timestamp cannot hold).
CREATE FUNCTION flightrec_iso_time(ns numeric) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT CASE WHEN ns = 0 OR ns < -9000000000000000000 OR ns > 9000000000000000000 THEN NULL
    ELSE to_char(to_timestamp(ns / 1e9) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') END
$$;
--> statement-breakpoint
-- An entity record (packEntity): id, uid, node, shard, listener (a str id), address, port, TLS,
-- open time.
CREATE FUNCTION flightrec_unpack_entity(b bytea, OUT uid text, OUT node_id numeric, OUT shard_id numeric,
  OUT listener numeric, OUT source_ip text, OUT source_port numeric, OUT tls numeric, OUT open_time numeric)
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
  p integer;
  skip numeric;
BEGIN
  SELECT u.v, u.next INTO skip, p FROM flightrec_uvarint(b, 0) u;
  SELECT t.s, t.next INTO uid, p FROM flightrec_packed_text(b, p) t;
  SELECT z.v, z.next INTO node_id, p FROM flightrec_zigzag(b, p) z;
  SELECT z.v, z.next INTO shard_id, p FROM flightrec_zigzag(b, p) z;
  SELECT u.v, u.next INTO listener, p FROM flightrec_uvarint(b, p) u;
  SELECT t.s, t.next INTO source_ip, p FROM flightrec_packed_text(b, p) t;
  SELECT z.v, z.next INTO source_port, p FROM flightrec_zigzag(b, p) z;
  SELECT u.v, u.next INTO tls, p FROM flightrec_uvarint(b, p) u;
  SELECT t.ns, t.next INTO open_time, p FROM flightrec_packed_time(b, p) t;
END $$;
--> statement-breakpoint
-- A version record (packVersion): id, entity, first poll, then the slow fields of
-- src/db/connections/fields.ts in order (str ids, but close_time a time and group_member_id a
-- string), a flags varint (1: the unknown fields' JSON follows) and that JSON.
CREATE FUNCTION flightrec_unpack_version(b bytea, OUT client_id numeric, OUT software_name numeric,
  OUT software_version numeric, OUT mechanism numeric, OUT auth_state numeric, OUT principal numeric,
  OUT state numeric, OUT close_time numeric, OUT group_id numeric, OUT group_instance_id numeric,
  OUT group_member_id text, OUT transactional_id numeric, OUT api_versions numeric, OUT unknown text)
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
  p integer := 0;
  skip numeric;
  flags numeric;
BEGIN
  SELECT u.v, u.next INTO skip, p FROM flightrec_uvarint(b, p) u;
  SELECT u.v, u.next INTO skip, p FROM flightrec_uvarint(b, p) u;
  SELECT u.v, u.next INTO skip, p FROM flightrec_uvarint(b, p) u;
  SELECT u.v, u.next INTO client_id, p FROM flightrec_uvarint(b, p) u;
  SELECT u.v, u.next INTO software_name, p FROM flightrec_uvarint(b, p) u;
  SELECT u.v, u.next INTO software_version, p FROM flightrec_uvarint(b, p) u;
  SELECT u.v, u.next INTO mechanism, p FROM flightrec_uvarint(b, p) u;
  SELECT u.v, u.next INTO auth_state, p FROM flightrec_uvarint(b, p) u;
  SELECT u.v, u.next INTO principal, p FROM flightrec_uvarint(b, p) u;
  SELECT u.v, u.next INTO state, p FROM flightrec_uvarint(b, p) u;
  SELECT t.ns, t.next INTO close_time, p FROM flightrec_packed_time(b, p) t;
  SELECT u.v, u.next INTO group_id, p FROM flightrec_uvarint(b, p) u;
  SELECT u.v, u.next INTO group_instance_id, p FROM flightrec_uvarint(b, p) u;
  SELECT t.s, t.next INTO group_member_id, p FROM flightrec_packed_text(b, p) t;
  SELECT u.v, u.next INTO transactional_id, p FROM flightrec_uvarint(b, p) u;
  SELECT u.v, u.next INTO api_versions, p FROM flightrec_uvarint(b, p) u;
  SELECT u.v, u.next INTO flags, p FROM flightrec_uvarint(b, p) u;
  IF mod(flags, 2) = 1 THEN
    SELECT t.s, t.next INTO unknown, p FROM flightrec_packed_text(b, p) t;
  END IF;
END $$;
--> statement-breakpoint
CREATE VIEW "connection_v" AS SELECT v."id" AS "version", e."id" AS "entity", c."name" AS "cluster", e."uid",
	v."from_poll", v."to_poll", e."first_poll", e."last_poll", pe."node_id"::bigint AS "node_id", pe."shard_id"::bigint AS "shard_id",
	(SELECT s FROM str WHERE id = pe."listener"::bigint) AS "listener_name",
	pe."source_ip", pe."source_port"::bigint AS "source_port", pe."tls"::bigint AS "tls",
	flightrec_iso_time(pe."open_time") AS "open_time",
	(SELECT s FROM str WHERE id = pv."client_id"::bigint) AS "client_id",
	(SELECT s FROM str WHERE id = pv."software_name"::bigint) AS "client_software_name",
	(SELECT s FROM str WHERE id = pv."software_version"::bigint) AS "client_software_version",
	(SELECT s FROM str WHERE id = pv."principal"::bigint) AS "user_principal",
	(SELECT s FROM str WHERE id = pv."mechanism"::bigint) AS "mechanism",
	(SELECT s FROM str WHERE id = pv."auth_state"::bigint) AS "auth_state",
	(SELECT s FROM str WHERE id = pv."state"::bigint) AS "state",
	flightrec_iso_time(pv."close_time") AS "close_time",
	(SELECT s FROM str WHERE id = pv."group_id"::bigint) AS "group_id",
	(SELECT s FROM str WHERE id = pv."group_instance_id"::bigint) AS "group_instance_id",
	pv."group_member_id",
	(SELECT s FROM str WHERE id = pv."transactional_id"::bigint) AS "transactional_id",
	(SELECT s FROM str WHERE id = pv."api_versions"::bigint) AS "api_versions", pv."unknown"
	FROM "conn_version" v JOIN "conn_entity" e ON e."cluster_id" = v."cluster_id" AND e."id" = v."entity" JOIN "cluster" c ON c."id" = e."cluster_id",
	LATERAL flightrec_unpack_entity(e."packed") pe, LATERAL flightrec_unpack_version(v."packed") pv;
