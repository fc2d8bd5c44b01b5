-- mucscale schema upgrade 1 -> 2 for PostgreSQL (Openfire database type "postgresql").
-- The room log's only key becomes PRIMARY KEY (roomJid, logTime, stanzaId): logId (and its sequence),
-- UNIQUE (stanzaId) and the (roomJid, logTime) index go. No row is lost: stanzaId was unique, so
-- (roomJid, logTime, stanzaId) is unique on every existing row. stanzaId compares bytewise (COLLATE "C") so
-- same-millisecond rows read back in the order mucscale sorts records not yet written.
ALTER TABLE mucscaleRoomLog DROP CONSTRAINT mucscaleRoomLog_stanzaId;
DROP INDEX mucscaleRoomLog_room_time;
ALTER TABLE mucscaleRoomLog DROP CONSTRAINT mucscaleRoomLog_pk;
ALTER TABLE mucscaleRoomLog DROP COLUMN logId;
ALTER TABLE mucscaleRoomLog ALTER COLUMN stanzaId TYPE VARCHAR(255) COLLATE "C";
ALTER TABLE mucscaleRoomLog ADD CONSTRAINT mucscaleRoomLog_pk PRIMARY KEY (roomJid, logTime, stanzaId);

UPDATE ofVersion SET version = 2 WHERE name = 'mucscale';
