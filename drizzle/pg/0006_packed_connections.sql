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
-- The fields of a packed record (src/db/bytes.ts ByteWriter) as text, read in one pass by a
-- layout of one letter per field: u an unsigned varint, z a zigzag varint, t a time (zigzag
-- seconds and nanoseconds: nanoseconds since the epoch), s a string (UTF-8, or UTF-16 code units
-- for a string with lone surrogates: what text cannot hold, NUL and lone surrogates, as U+FFFD),
-- f a flags varint whose bit 0 says a string follows (that string, else NULL). Past the end of
-- the record: an error naming the byte.
CREATE FUNCTION flightrec_unpack_record(b bytea, layout text) RETURNS text[]
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
  out text[] := '{}';
  p integer := 0;
  n integer := length(b);
  k integer := 0;
  kind text;
  -- what the next varint is: a field's first ('field'), a time's nanoseconds ('nano'), a string's
  -- length ('head', after the flags of 'f'), or a UTF-16 code unit ('unit')
  need text := 'field';
  v numeric;
  byte integer;
  mul numeric;
  sec numeric;
  len integer;
  bytes bytea;
  units integer;
  pending integer;
  s text;
  i integer;
BEGIN
  LOOP
    IF need = 'field' THEN
      k := k + 1;
      EXIT WHEN k > length(layout);
      kind := substr(layout, k, 1);
    END IF;
    v := 0;
    mul := 1;
    LOOP
      IF p >= n THEN
        RAISE EXCEPTION 'flightrec: a varint at byte % runs past the end of its %-byte record', p, n;
      END IF;
      byte := get_byte(b, p);
      p := p + 1;
      v := v + (byte & 127) * mul;
      EXIT WHEN byte < 128;
      mul := mul * 128;
    END LOOP;
    IF need = 'field' AND kind = 'u' THEN
      out := out || v::text;
    ELSIF need = 'field' AND kind = 'z' THEN
      out := out || (CASE WHEN mod(v, 2) = 0 THEN div(v, 2) ELSE -div(v + 1, 2) END)::text;
    ELSIF need = 'field' AND kind = 't' THEN
      sec := CASE WHEN mod(v, 2) = 0 THEN div(v, 2) ELSE -div(v + 1, 2) END;
      need := 'nano';
    ELSIF need = 'nano' THEN
      out := out || (sec * 1000000000 + v)::text;
      need := 'field';
    ELSIF need = 'field' AND kind = 'f' THEN
      IF mod(v, 2) = 0 THEN
        out := out || NULL::text;
      ELSE
        need := 'head';
      END IF;
    ELSIF need = 'unit' THEN
      -- UTF-16 code units: pairs joined, lone surrogates and NUL as U+FFFD
      units := units - 1;
      IF pending IS NOT NULL AND v BETWEEN 56320 AND 57343 THEN
        s := s || chr(65536 + (pending - 55296) * 1024 + (v::integer - 56320));
      ELSE
        IF pending IS NOT NULL THEN
          s := s || U&'\FFFD';
        END IF;
        IF v BETWEEN 55296 AND 56319 THEN
          pending := v::integer;
          IF units = 0 THEN
            s := s || U&'\FFFD';
          END IF;
          CONTINUE WHEN units > 0;
        ELSE
          s := s || CASE WHEN v = 0 OR v BETWEEN 56320 AND 57343 THEN U&'\FFFD' ELSE chr(v::integer) END;
        END IF;
      END IF;
      pending := NULL;
      IF units = 0 THEN
        out := out || s;
        need := 'field';
      END IF;
    ELSE
      -- a string's length ('s', or 'head' after flags with bit 0): even, UTF-8 bytes follow;
      -- odd, UTF-16 code units, one varint each
      len := div(v, 2);
      IF mod(v, 2) = 1 AND len > 0 THEN
        s := '';
        units := len;
        pending := NULL;
        need := 'unit';
        CONTINUE;
      END IF;
      IF p + len > n THEN
        RAISE EXCEPTION 'flightrec: a string at byte % runs past the end of its %-byte record', p, n;
      END IF;
      bytes := substring(b FROM p + 1 FOR len);
      p := p + len;
      -- NUL, which text cannot hold, as U+FFFD (a 0 byte is never inside a UTF-8 sequence)
      s := '';
      LOOP
        i := position('\x00'::bytea IN bytes);
        EXIT WHEN i = 0;
        s := s || convert_from(substring(bytes FROM 1 FOR i - 1), 'UTF8') || U&'\FFFD';
        bytes := substring(bytes FROM i + 1);
      END LOOP;
      out := out || (s || convert_from(bytes, 'UTF8'));
      need := 'field';
    END IF;
  END LOOP;
  RETURN out;
END $$;
--> statement-breakpoint
-- A time in nanoseconds as ISO-8601 UTC text (NULL for 0 and for what a timestamp cannot hold).
CREATE FUNCTION flightrec_iso_time(ns numeric) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT CASE WHEN ns = 0 OR ns < -9000000000000000000 OR ns > 9000000000000000000 THEN NULL
    ELSE to_char(to_timestamp(ns / 1e9) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') END
$$;
--> statement-breakpoint
-- (OFFSET 0 keeps the record decoded once per call when PostgreSQL inlines these functions.)
-- An entity record (packEntity): id, uid, node, shard, listener (a str id), address, port, TLS,
-- open time (nanoseconds).
CREATE FUNCTION flightrec_unpack_entity(b bytea, OUT uid text, OUT node_id bigint, OUT shard_id bigint,
  OUT listener bigint, OUT source_ip text, OUT source_port bigint, OUT tls bigint, OUT open_time numeric)
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT r[2], r[3]::bigint, r[4]::bigint, r[5]::bigint, r[6], r[7]::bigint, r[8]::bigint, r[9]::numeric
    FROM (SELECT flightrec_unpack_record(b, 'uszzuszut') AS r OFFSET 0) x
$$;
--> statement-breakpoint
-- A version record (packVersion): id, entity, first poll, then the slow fields of
-- src/db/connections/fields.ts in order (str ids, but close_time a time and group_member_id a
-- string), then a flags varint (bit 0: the unknown fields' JSON follows).
CREATE FUNCTION flightrec_unpack_version(b bytea, OUT client_id bigint, OUT software_name bigint,
  OUT software_version bigint, OUT mechanism bigint, OUT auth_state bigint, OUT principal bigint,
  OUT state bigint, OUT close_time numeric, OUT group_id bigint, OUT group_instance_id bigint,
  OUT group_member_id text, OUT transactional_id bigint, OUT api_versions bigint, OUT unknown text)
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT r[4]::bigint, r[5]::bigint, r[6]::bigint, r[7]::bigint, r[8]::bigint, r[9]::bigint, r[10]::bigint,
    r[11]::numeric, r[12]::bigint, r[13]::bigint, r[14], r[15]::bigint, r[16]::bigint, r[17]
    FROM (SELECT flightrec_unpack_record(b, 'uuuuuuuuuutuusuuf') AS r OFFSET 0) x
$$;
--> statement-breakpoint
CREATE VIEW "connection_v" AS SELECT v."id" AS "version", e."id" AS "entity", c."name" AS "cluster", e."uid",
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
