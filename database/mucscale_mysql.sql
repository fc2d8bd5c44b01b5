-- mucscale schema, version 4, for MySQL (Openfire database type "mysql").
-- Openfire's SchemaManager runs this once when ofVersion has no 'mucscale' row; mucscale standalone runs it too.
-- Format rules (Openfire): each statement ends with a semicolon at the end of a line, comments on their own lines.
-- Tables are utf8mb4 with a binary collation: 4-byte characters (emoji) are stored, JIDs compare exactly.

-- Room log: one row per groupchat message. Its only key is the clustered primary key (roomJid, logTime, stanzaId):
-- history on join and retrieval read one room's time range in key order, an insert maintains one B-tree (no
-- AUTO_INCREMENT lock serializing parallel writers), and a retried, replayed or recovered record carries the same
-- room, time and stanzaId, so its duplicate hits the key and is ignored. Same-millisecond messages read back in
-- stanzaId order, which is send order for ids of one service run (fixed-width counter).
-- Key size: 255 + 255 characters of utf8mb4 (4 bytes each) + 8 = 2048 bytes, under InnoDB's 3072 (DYNAMIC rows).
CREATE TABLE mucscaleRoomLog (
  stanzaId      VARCHAR(255)  NOT NULL,
  roomJid       VARCHAR(255)  NOT NULL,
  logTime       BIGINT        NOT NULL,
  senderNick    VARCHAR(1023) NOT NULL,
  senderJid     VARCHAR(3071) NULL,
  body          MEDIUMTEXT    NULL,
  subject       TEXT          NULL,
  filterAction  VARCHAR(32)   NULL,
  stanza        MEDIUMTEXT    NULL,
  PRIMARY KEY (roomJid, logTime, stanzaId)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
-- Archive lookups by stanza id (XEP-0313 before-id/after-id/ids, XEP-0425 moderation) walk the room's key too:
-- (roomJid, stanzaId) finds a message's place in the room's time order without a scan.
CREATE INDEX mucscaleRoomLog_room_id ON mucscaleRoomLog (roomJid, stanzaId);

-- Rows the writer could not store (after isolating them from their batch), with the reason. The record is kept
-- whole as base64 of the spill format so that parking it cannot fail for the same reason the insert did.
CREATE TABLE mucscaleDeadLetter (
  deadId        BIGINT        NOT NULL AUTO_INCREMENT,
  stanzaId      VARCHAR(255)  NULL,
  roomJid       VARCHAR(255)  NULL,
  logTime       BIGINT        NOT NULL,
  parkedAt      BIGINT        NOT NULL,
  reason        VARCHAR(2000) NOT NULL,
  record        LONGTEXT      NOT NULL,
  PRIMARY KEY (deadId),
  INDEX mucscaleDeadLetter_parkedAt (parkedAt)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- Persistent rooms: one row per room, configuration as key/value pairs, affiliations per bare JID.
CREATE TABLE mucscaleRoom (
  roomJid       VARCHAR(255)  NOT NULL,
  createdAt     BIGINT        NOT NULL,
  modifiedAt    BIGINT        NOT NULL,
  PRIMARY KEY (roomJid)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE mucscaleRoomConfig (
  roomJid       VARCHAR(255)  NOT NULL,
  propName      VARCHAR(100)  NOT NULL,
  propValue     TEXT          NULL,
  PRIMARY KEY (roomJid, propName)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE mucscaleAffiliation (
  roomJid       VARCHAR(255)  NOT NULL,
  jid           VARCHAR(255)  NOT NULL,
  affiliation   VARCHAR(16)   NOT NULL,
  reason        TEXT          NULL,
  PRIMARY KEY (roomJid, jid)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- Messages the content filter flagged but delivered, waiting for a moderator's review (mucscale.filter.review-queue):
-- one row per message until a moderator retracts or dismisses it.
CREATE TABLE mucscaleReview (
  stanzaId      VARCHAR(255)  NOT NULL,
  roomJid       VARCHAR(255)  NOT NULL,
  logTime       BIGINT        NOT NULL,
  senderNick    VARCHAR(1023) NOT NULL,
  senderJid     VARCHAR(3071) NULL,
  body          MEDIUMTEXT    NULL,
  terms         VARCHAR(2000) NULL,
  PRIMARY KEY (roomJid, stanzaId),
  INDEX mucscaleReview_logTime (logTime)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- Room administration audit trail (issue 37): one row per change made through the HTTP API or the admin pages,
-- who (how the caller authenticated, never a secret), from which address, what (method and path), when, and the
-- HTTP status answered with the refusal's message. Read newest first by the key; rows are never updated.
CREATE TABLE mucscaleAdminAudit (
  auditId       BIGINT        NOT NULL AUTO_INCREMENT,
  auditTime     BIGINT        NOT NULL,
  who           VARCHAR(255)  NOT NULL,
  fromAddress   VARCHAR(64)   NOT NULL,
  method        VARCHAR(16)   NOT NULL,
  path          VARCHAR(2000) NOT NULL,
  status        INTEGER       NOT NULL,
  message       VARCHAR(2000) NULL,
  PRIMARY KEY (auditId),
  INDEX mucscaleAdminAudit_time (auditTime)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

INSERT INTO ofVersion (name, version) VALUES ('mucscale', 4);
