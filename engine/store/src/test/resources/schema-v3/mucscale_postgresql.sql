-- mucscale schema, version 3, for PostgreSQL (Openfire database type "postgresql").
-- Openfire's SchemaManager runs this once when ofVersion has no 'mucscale' row; mucscale standalone runs it too.
-- Format rules (Openfire): each statement ends with a semicolon at the end of a line, comments on their own lines.

-- Room log: one row per groupchat message. Its only key is the clustered primary key (roomJid, logTime, stanzaId):
-- history on join and retrieval read one room's time range in key order, an insert maintains one B-tree (no
-- AUTO_INCREMENT lock serializing parallel writers), and a retried, replayed or recovered record carries the same
-- room, time and stanzaId, so its duplicate hits the key and is ignored. Same-millisecond messages read back in
-- stanzaId order, which is send order for ids of one service run (fixed-width counter).
-- stanzaId compares bytewise (COLLATE "C") whatever the database's locale, as utf8mb4_bin does on MySQL and as
-- mucscale orders records not yet written, so rows and queued records interleave the same way.
CREATE TABLE mucscaleRoomLog (
  stanzaId      VARCHAR(255)  COLLATE "C" NOT NULL,
  roomJid       VARCHAR(255)  NOT NULL,
  logTime       BIGINT        NOT NULL,
  senderNick    VARCHAR(1023) NOT NULL,
  senderJid     VARCHAR(3071) NULL,
  body          TEXT          NULL,
  subject       TEXT          NULL,
  filterAction  VARCHAR(32)   NULL,
  stanza        TEXT          NULL,
  CONSTRAINT mucscaleRoomLog_pk PRIMARY KEY (roomJid, logTime, stanzaId)
);
-- Archive lookups by stanza id (XEP-0313 before-id/after-id/ids, XEP-0425 moderation) walk the room's key too:
-- (roomJid, stanzaId) finds a message's place in the room's time order without a scan.
CREATE INDEX mucscaleRoomLog_room_id ON mucscaleRoomLog (roomJid, stanzaId);

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

-- Messages the content filter flagged but delivered, waiting for a moderator's review (mucscale.filter.review-queue):
-- one row per message until a moderator retracts or dismisses it.
CREATE TABLE mucscaleReview (
  stanzaId      VARCHAR(255)  COLLATE "C" NOT NULL,
  roomJid       VARCHAR(255)  NOT NULL,
  logTime       BIGINT        NOT NULL,
  senderNick    VARCHAR(1023) NOT NULL,
  senderJid     VARCHAR(3071) NULL,
  body          TEXT    NULL,
  terms         VARCHAR(2000) NULL,
  CONSTRAINT mucscaleReview_pk PRIMARY KEY (roomJid, stanzaId)
);
CREATE INDEX mucscaleReview_logTime ON mucscaleReview (logTime);

INSERT INTO ofVersion (name, version) VALUES ('mucscale', 3);
