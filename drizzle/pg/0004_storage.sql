-- Room on each page of conn_entity for a new version of every row: a batch seal sets last_poll on
-- every connection it saw, and PostgreSQL writes a new version of each row it updates. With half
-- of each page free, that version goes on the same page (a HOT update: last_poll is in no index),
-- and the versions of the seal before are pruned from the page as it is read, without VACUUM and
-- without new index entries. Full pages (the default) send every updated row to a new page and
-- leave the old one until autovacuum comes: 10,000 connections sealed every 8 polls grew the table
-- sixfold in 100 polls. Existing pages are rewritten to this only by VACUUM FULL or CLUSTER.
ALTER TABLE "conn_entity" SET (fillfactor = 50);
