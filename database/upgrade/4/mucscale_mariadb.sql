-- mucscale schema upgrade 3 -> 4 for mariadb (Openfire database type "mariadb").
-- Adds the room administration audit trail.
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

UPDATE ofVersion SET version = 4 WHERE name = 'mucscale';
