-- mucscale schema upgrade 1 -> 2 for MySQL (Openfire database type "mysql").
-- The room log's only key becomes the clustered PRIMARY KEY (roomJid, logTime, stanzaId): logId, its AUTO_INCREMENT
-- (whose lock serialized parallel writers), UNIQUE (stanzaId) and INDEX (roomJid, logTime) go. No row is lost:
-- stanzaId was unique, so (roomJid, logTime, stanzaId) is unique on every existing row. One ALTER, so InnoDB
-- rebuilds the table once and the table never exists without a primary key.
ALTER TABLE mucscaleRoomLog
  DROP INDEX mucscaleRoomLog_stanzaId,
  DROP INDEX mucscaleRoomLog_room_time,
  DROP PRIMARY KEY,
  DROP COLUMN logId,
  ADD PRIMARY KEY (roomJid, logTime, stanzaId);

UPDATE ofVersion SET version = 2 WHERE name = 'mucscale';
