-- conn_entity.last_poll is now written once per connection, when a frame no longer lists it (it
-- is 2^53-1 while listed; see OPEN_LAST_POLL in src/db/connections/ingest.ts), instead of at every
-- batch seal for every connection the batch saw. Half of each page no longer needs to be kept
-- free for those rewrites (0004_storage): a tenth is enough for the few rows of a page that end
-- between two visits of its page (a HOT update, pruned in place, no new index entries). Existing
-- pages keep their free half until VACUUM FULL or CLUSTER rewrites the table.
ALTER TABLE "conn_entity" SET (fillfactor = 90);
