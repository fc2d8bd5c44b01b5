-- mucscale schema upgrade 1 -> 2 for HSQLDB (Openfire database type "hsqldb").
-- The room log's only key becomes PRIMARY KEY (roomJid, logTime, stanzaId): logId (an identity column),
-- UNIQUE (stanzaId) and the (roomJid, logTime) index go. No row is lost: stanzaId was unique, so
-- (roomJid, logTime, stanzaId) is unique on every existing row.
ALTER TABLE mucscaleRoomLog DROP CONSTRAINT mucscaleRoomLog_stanzaId;
DROP INDEX mucscaleRoomLog_room_time;
ALTER TABLE mucscaleRoomLog DROP PRIMARY KEY;
ALTER TABLE mucscaleRoomLog DROP COLUMN logId;
ALTER TABLE mucscaleRoomLog ADD CONSTRAINT mucscaleRoomLog_pk PRIMARY KEY (roomJid, logTime, stanzaId);

UPDATE ofVersion SET version = 2 WHERE name = 'mucscale';
