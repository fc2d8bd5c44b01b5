#!/usr/bin/env bash
# Check of the archive benchmark's parts against real servers (no mocks, no timed assertions): a throwaway ejabberd +
# mucscale standalone + MariaDB (bench/e2e/ejabberd.sh mucscale-mariadb), archive_prefill.sh with 1,000 messages,
# then archive_load.py for 40 queries: every answer must be a full page of 50 (its result messages before the IQ result)
# with no error; then with ids that are not in the room, every query must come back as an error
# (item-not-found), so a broken parser that saw no answers or no errors fails here.
#   bench/e2e/archive_load_test.sh        exit 0 passed, 1 failed
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d /tmp/e2e-archive-test.XXXXXX)"
trap '"$here/ejabberd.sh" stop "$work" || true; rm -rf "$work"' EXIT
"$here/ejabberd.sh" start "$work" mucscale-mariadb > "$work/start.log" 2>&1 || { cat "$work/start.log" >&2; exit 1; }
source "$work/server.env"
"$here/archive_prefill.sh" "$work" "archive-bench@$MUC_DOMAIN" 1000 > /dev/null
run() { python3 "$here/archive_load.py" 127.0.0.1 "$C2S_PORT" "$DOMAIN" "$MUC_DOMAIN" --room archive-bench \
  --rate 20 --clients 2 --duration 600 --queries 40 "$@" 2>/dev/null; }
ok="$(run --ids bench-:1000 || true)"
missing="$(run --ids nothere-:1000 || true)"
python3 - "$ok" "$missing" <<'PY'
import json, sys
ok, missing = json.loads(sys.argv[1]), json.loads(sys.argv[2])
fail = []
if not (ok["answered"] == 40 and ok["errors"] == 0 and ok["shortPages"] == 0): fail.append("known ids: %s" % ok)
if not (missing["answered"] == 0 and missing["errors"] == 40 and "item-not-found" in missing["firstErrors"][0]):
    fail.append("unknown ids: %s" % missing)
print("\n".join(fail) if fail else "archive_load_test: passed (%d full pages; %d unknown-id queries refused)"
      % (ok["answered"], missing["errors"]))
sys.exit(1 if fail else 0)
PY
