#!/usr/bin/env bash
# Built-in MUC against mucscale inside one Openfire build, per client profile (issue 41), one after the other in one
# invocation, and one table of ratios at the levels both passed.
#
#   OPENFIRE_HOME=/path/to/openfire-5.1 bench/e2e/profiles-ab.sh [profile ...] [-- loadgen options for every run]
#
# Profiles (default: sm plain): plain = ref-5000; sm = ref-5000-sm (every client XEP-0198, acks each <r/>);
# sm-off = ref-5000-sm against mucscale with mucscale.openfire.raw-stream-managed=false (the packet path, as before
# issue 41; mucscale arm only); csi = ref-5000-csi; ws = ref-5000-ws (HTTP binding on, WebSocket clients);
# mix = ref-5000-modern-mix (HTTP binding on, STARTTLS required for TCP clients with SCRAM-SHA-1, plain ws for the
# WebSocket share). Each arm is bench/e2e/run.sh openfire <muc|mucscale> <scenario> (server on CPU 0, generator on
# CPU 1; results under bench/e2e/results/). Output: the table on stdout and bench/e2e/results/profiles-ab-<time>.md.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
profiles=(); extra=()
while [ $# -gt 0 ]; do
  if [ "$1" = "--" ]; then shift; extra=("$@"); break; fi
  profiles+=("$1"); shift
done
[ ${#profiles[@]} -gt 0 ] || profiles=(sm plain)
: "${OPENFIRE_HOME:?set OPENFIRE_HOME to an Openfire installation}"
stamp="$(date -u +%Y%m%dT%H%MZ)"
report="$here/results/profiles-ab-$stamp.md"
summaries=()

arm() { # label variant scenario [env...] -- [loadgen options...]
  local label="$1" variant="$2" scenario="$3"; shift 3
  local envs=(); while [ $# -gt 0 ] && [ "$1" != "--" ]; do envs+=("$1"); shift; done; [ $# -gt 0 ] && shift
  echo "== profiles-ab: $label ($variant, $scenario) at $(date -u +%H:%M:%S)" >&2
  local before; before="$(ls -d "$here"/results/*-openfire-"$variant"-"$scenario" 2>/dev/null | tail -1 || true)"
  env "${envs[@]}" "$here/run.sh" openfire "$variant" "$scenario" "$@" "${extra[@]}" >&2 || echo "profiles-ab: $label exited $?" >&2
  local out; out="$(ls -d "$here"/results/*-openfire-"$variant"-"$scenario" 2>/dev/null | tail -1 || true)"
  if [ -n "$out" ] && [ "$out" != "$before" ] && [ -f "$out/summary.json" ]; then
    summaries+=("$label=$out/summary.json")
  fi
  sleep 15
}

mix_env=(E2E_OPENFIRE_HTTPBIND=true E2E_OPENFIRE_PROPS=xmpp.client.tls.policy=optional)
mix_opts=(--set server.tls=required --set server.sasl=SCRAM-SHA-1)
for p in "${profiles[@]}"; do
  case "$p" in
    plain) arm "plain built-in" muc ref-5000; arm "plain mucscale" mucscale ref-5000 ;;
    sm) arm "sm built-in" muc ref-5000-sm; arm "sm mucscale" mucscale ref-5000-sm ;;
    sm-off) arm "sm mucscale raw-stream-managed=false" mucscale ref-5000-sm \
              E2E_MUCSCALE_PROPS=mucscale.openfire.raw-stream-managed=false ;;
    csi) arm "csi built-in" muc ref-5000-csi; arm "csi mucscale" mucscale ref-5000-csi ;;
    ws) arm "ws built-in" muc ref-5000-ws E2E_OPENFIRE_HTTPBIND=true
        arm "ws mucscale" mucscale ref-5000-ws E2E_OPENFIRE_HTTPBIND=true ;;
    mix) arm "mix built-in" muc ref-5000-modern-mix "${mix_env[@]}" -- "${mix_opts[@]}"
         arm "mix mucscale" mucscale ref-5000-modern-mix "${mix_env[@]}" -- "${mix_opts[@]}" ;;
    *) echo "profiles-ab: unknown profile $p (plain, sm, sm-off, csi, ws, mix)" >&2; exit 2 ;;
  esac
done
{
  echo "# profiles-ab $stamp"
  echo
  echo "\`bench/e2e/profiles-ab.sh ${profiles[*]}${extra:+ -- ${extra[*]}}\`, $(nproc) CPUs, $(uname -r), $(java -version 2>&1 | head -1)"
  echo
  python3 "$here/profiles_table.py" "${summaries[@]}"
} | tee "$report"
