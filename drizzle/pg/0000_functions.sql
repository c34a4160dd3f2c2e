-- Poll ids on PostgreSQL: (UTC day number << 32) + a sequence, so that ids keep increasing and
-- their high bits name the day partition (drizzle/pg/0002) a poll's rows live in. The sequence
-- cycles after 2^32 - 1 polls (decades at fleet rates); ids stay unique unless one day wraps it.
CREATE SEQUENCE flightrec_poll_seq AS bigint MINVALUE 1 MAXVALUE 4294967295 CYCLE;
--> statement-breakpoint
CREATE FUNCTION flightrec_poll_id() RETURNS bigint LANGUAGE sql VOLATILE AS $$
  SELECT (floor(extract(epoch from clock_timestamp()) / 86400)::bigint << 32) + nextval('flightrec_poll_seq')
$$;
