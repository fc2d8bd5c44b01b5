#!/usr/bin/env bash
# Fills one room's log with COUNT messages in the MariaDB of a running mucscale-mariadb server (bench/e2e), for the
# archive benchmark (issue 16); see bench/e2e/README.md.
#
#   bench/e2e/archive_prefill.sh <workdir> <room jid> [count (1000000)] [stanza-id prefix (bench-)]
#
# One INSERT ... SELECT over MariaDB's SEQUENCE engine (seq_0_to_N): stanza ids PREFIX + 9 digits (what
# archive_load.py asks for), 50 senders, one message per 10 ms ending a day ago (older than anything the run logs),
# then ANALYZE TABLE. Needs the table, so run it after mucscale started (it installs the schema).
set -euo pipefail
work="$1"; room="$2"; count="${3:-1000000}"; prefix="${4:-bench-}"
sock="$work/mariadb/mysqld.sock"
[ -S "$sock" ] || { echo "archive_prefill.sh: no MariaDB socket at $sock (variant mucscale-mariadb?)" >&2; exit 1; }
case "$count" in ''|*[!0-9]*|0) echo "archive_prefill.sh: count must be a positive number" >&2; exit 2 ;; esac
t0=$(date +%s.%N)
start_ms=$(( ($(date +%s) - 86400) * 1000 - count * 10 ))
mariadb --no-defaults --socket="$sock" --user=root --batch mucscale -e "
  INSERT INTO mucscaleRoomLog (stanzaId, roomJid, logTime, senderNick, senderJid, body)
  SELECT CONCAT('$prefix', LPAD(seq, 9, '0')), '$room', $start_ms + seq * 10, CONCAT('nick', seq % 50),
         CONCAT('user', seq % 50, '@localhost/r'), CONCAT('archived message number ', seq, ' with some ordinary text')
  FROM seq_0_to_$((count - 1));
  ANALYZE TABLE mucscaleRoomLog;
  SELECT COUNT(*) AS prefilled FROM mucscaleRoomLog WHERE roomJid = '$room';"
echo "archive_prefill.sh: $count rows for $room in $(echo "$(date +%s.%N) - $t0" | bc) s" >&2
