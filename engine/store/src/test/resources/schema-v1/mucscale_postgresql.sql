-- mucscale schema, version 1, for PostgreSQL (Openfire database type "postgresql").
-- Openfire's SchemaManager runs this once when ofVersion has no 'mucscale' row; mucscale standalone runs it too.
-- Format rules (Openfire): each statement ends with a semicolon at the end of a line, comments on their own lines.

-- Room log: one row per groupchat message. stanzaId is unique so a retried batch never duplicates a row.
CREATE TABLE mucscaleRoomLog (
  logId         BIGSERIAL     NOT NULL,
  stanzaId      VARCHAR(255)  NOT NULL,
  roomJid       VARCHAR(255)  NOT NULL,
  logTime       BIGINT        NOT NULL,
  senderNick    VARCHAR(1023) NOT NULL,
  senderJid     VARCHAR(3071) NULL,
  body          TEXT          NULL,
  subject       TEXT          NULL,
  filterAction  VARCHAR(32)   NULL,
  stanza        TEXT          NULL,
  CONSTRAINT mucscaleRoomLog_pk PRIMARY KEY (logId),
  CONSTRAINT mucscaleRoomLog_stanzaId UNIQUE (stanzaId)
);
CREATE INDEX mucscaleRoomLog_room_time ON mucscaleRoomLog (roomJid, logTime);

-- Rows the writer could not store (after isolating them from their batch), with the reason. The record is kept
-- whole as base64 of the spill format so that parking it cannot fail for the same reason the insert did.
CREATE TABLE mucscaleDeadLetter (
  deadId        BIGSERIAL     NOT NULL,
  stanzaId      VARCHAR(255)  NULL,
  roomJid       VARCHAR(255)  NULL,
  logTime       BIGINT        NOT NULL,
  parkedAt      BIGINT        NOT NULL,
  reason        VARCHAR(2000) NOT NULL,
  record        TEXT          NOT NULL,
  CONSTRAINT mucscaleDeadLetter_pk PRIMARY KEY (deadId)
);
CREATE INDEX mucscaleDeadLetter_parkedAt ON mucscaleDeadLetter (parkedAt);

-- Persistent rooms: one row per room, configuration as key/value pairs, affiliations per bare JID.
CREATE TABLE mucscaleRoom (
  roomJid       VARCHAR(255)  NOT NULL,
  createdAt     BIGINT        NOT NULL,
  modifiedAt    BIGINT        NOT NULL,
  CONSTRAINT mucscaleRoom_pk PRIMARY KEY (roomJid)
);

CREATE TABLE mucscaleRoomConfig (
  roomJid       VARCHAR(255)  NOT NULL,
  propName      VARCHAR(100)  NOT NULL,
  propValue     TEXT          NULL,
  CONSTRAINT mucscaleRoomConfig_pk PRIMARY KEY (roomJid, propName)
);

CREATE TABLE mucscaleAffiliation (
  roomJid       VARCHAR(255)  NOT NULL,
  jid           VARCHAR(255)  NOT NULL,
  affiliation   VARCHAR(16)   NOT NULL,
  reason        TEXT          NULL,
  CONSTRAINT mucscaleAffiliation_pk PRIMARY KEY (roomJid, jid)
);

INSERT INTO ofVersion (name, version) VALUES ('mucscale', 1);
