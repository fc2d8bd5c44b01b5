-- mucscale schema upgrade 2 -> 3 for hsqldb (Openfire database type "hsqldb").
-- Adds the room log's (roomJid, stanzaId) index for archive queries and moderation, and the review queue.
-- Archive lookups by stanza id (XEP-0313 before-id/after-id/ids, XEP-0425 moderation) walk the room's key too:
-- (roomJid, stanzaId) finds a message's place in the room's time order without a scan.
CREATE INDEX mucscaleRoomLog_room_id ON mucscaleRoomLog (roomJid, stanzaId);

-- Messages the content filter flagged but delivered, waiting for a moderator's review (mucscale.filter.review-queue):
-- one row per message until a moderator retracts or dismisses it.
CREATE TABLE mucscaleReview (
  stanzaId      VARCHAR(255)  NOT NULL,
  roomJid       VARCHAR(255)  NOT NULL,
  logTime       BIGINT        NOT NULL,
  senderNick    VARCHAR(1023) NOT NULL,
  senderJid     VARCHAR(3071) NULL,
  body          LONGVARCHAR    NULL,
  terms         VARCHAR(2000) NULL,
  CONSTRAINT mucscaleReview_pk PRIMARY KEY (roomJid, stanzaId)
);
CREATE INDEX mucscaleReview_logTime ON mucscaleReview (logTime);

UPDATE ofVersion SET version = 3 WHERE name = 'mucscale';
